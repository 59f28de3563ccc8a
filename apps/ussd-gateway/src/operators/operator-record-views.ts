import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import {
  ORDER_STATUSES,
  OrderStatus,
  TICKET_CATEGORIES,
  TicketCategory,
  TICKET_STATUSES,
  TicketStatus,
} from '../domain/order-rules';
import type { OrderRecord, TicketRecord } from '../orders/orders.repository';

// What the operator endpoints answer, for the OpenAPI document: each view implements the record it describes.

@ApiSchema({ name: 'Order' })
export class OrderView implements OrderRecord {
  @ApiProperty({ example: 'F000042' }) orderNumber!: string;
  @ApiProperty({ example: 'C1A2B3C4D' }) customerId!: string;
  @ApiProperty() phoneNumber!: string;
  @ApiProperty() productCode!: string;
  @ApiProperty({ type: 'integer' }) quantity!: number;
  @ApiProperty({ type: 'integer' }) unitPriceMinor!: number;
  @ApiProperty({ type: 'integer' }) totalMinor!: number;
  @ApiProperty() currency!: string;
  @ApiProperty() deliveryPoint!: string;
  @ApiProperty({ enum: ORDER_STATUSES }) status!: OrderStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

@ApiSchema({ name: 'Ticket' })
export class TicketView implements TicketRecord {
  @ApiProperty({ example: 'T000007' }) ticketNumber!: string;
  @ApiProperty() customerId!: string;
  @ApiProperty() phoneNumber!: string;
  @ApiProperty({ enum: TICKET_CATEGORIES }) category!: TicketCategory;
  @ApiProperty({ type: 'string', nullable: true }) note!: string | null;
  @ApiProperty({ enum: TICKET_STATUSES }) status!: TicketStatus;
  @ApiProperty({ format: 'date-time' }) createdAt!: string;
  @ApiProperty({ format: 'date-time' }) updatedAt!: string;
}

/** One page of a list, newest first. */
export interface Page<R> {
  items: R[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
}

@ApiSchema({ name: 'OrderPage' })
export class OrderPage implements Page<OrderRecord> {
  @ApiProperty({ type: () => OrderView, isArray: true }) items!: OrderView[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor!: string | null;
}

@ApiSchema({ name: 'TicketPage' })
export class TicketPage implements Page<TicketRecord> {
  @ApiProperty({ type: () => TicketView, isArray: true }) items!: TicketView[];
  @ApiProperty({ type: 'string', nullable: true }) nextCursor!: string | null;
}
