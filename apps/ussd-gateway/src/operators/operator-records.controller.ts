import { Body, Controller, Get, HttpCode, Param, Patch, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { strictValidationPipe } from '@dmrv/http-kit';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import type { OrderRecord, TicketRecord } from '../orders/orders.repository';
import { ApiOperatorAnswers } from '../contract/operator-api';
import {
  OrderListQuery,
  OrderNumberParameter,
  OrderStatusUpdate,
  TicketListQuery,
  TicketNumberParameter,
  TicketStatusUpdate,
} from './operator-records.dto';
import { OrderPage, OrderView, Page, TicketPage, TicketView } from './operator-record-views';
import { ORDERS, OperatorRecordsService, TICKETS, transitionsText } from './operator-records.service';

const valid = strictValidationPipe();
// Nest resolves a method's parameters last first: the path parameter, listed last, is refused before the body is
// read (an overlong number is named even when the body is wrong too).

/** Orders and tickets for the programme's staff: read, filter, page, move along (README, "Operator endpoints"). */
@ApiTags('Operators')
@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OperatorRecordsController {
  constructor(private readonly records: OperatorRecordsService) {}

  @Get('orders')
  @ApiOperation({ operationId: 'listOrders', summary: 'Orders, newest first' })
  @ApiOperatorAnswers({ description: 'One page', type: OrderPage })
  orders(@Query(valid) query: OrderListQuery): Promise<Page<OrderRecord>> {
    return this.records.list(ORDERS, query);
  }

  @Patch('orders/:orderNumber')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'updateOrderStatus',
    summary: 'Move an order to another status',
    description: `Allowed: ${transitionsText(ORDERS)}.`,
  })
  @ApiOperatorAnswers({ description: 'The order as it is now', type: OrderView, conflict: true })
  moveOrder(
    @Body(valid) { status }: OrderStatusUpdate,
    @Param(valid) { orderNumber }: OrderNumberParameter,
  ): Promise<OrderRecord> {
    return this.records.move(ORDERS, orderNumber, status);
  }

  @Get('tickets')
  @ApiOperation({ operationId: 'listTickets', summary: 'Tickets, newest first' })
  @ApiOperatorAnswers({ description: 'One page', type: TicketPage })
  tickets(@Query(valid) query: TicketListQuery): Promise<Page<TicketRecord>> {
    return this.records.list(TICKETS, query);
  }

  @Patch('tickets/:ticketNumber')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'updateTicketStatus',
    summary: 'Move a ticket to another status',
    description: `Allowed: ${transitionsText(TICKETS)}.`,
  })
  @ApiOperatorAnswers({ description: 'The ticket as it is now', type: TicketView, conflict: true })
  moveTicket(
    @Body(valid) { status }: TicketStatusUpdate,
    @Param(valid) { ticketNumber }: TicketNumberParameter,
  ): Promise<TicketRecord> {
    return this.records.move(TICKETS, ticketNumber, status);
  }
}
