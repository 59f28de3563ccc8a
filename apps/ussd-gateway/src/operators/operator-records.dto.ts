import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, Matches, ValidateBy } from 'class-validator';
import { BoundedString, OPERATOR_PARAMETER_MAX_LENGTH as MAX } from '../contract/parameter-limits';
import { ORDER_STATUSES, OrderStatus, TICKET_STATUSES, TicketStatus } from '../domain/order-rules';
import {
  DATE_MESSAGE,
  dateOf,
  idOfCursor,
  isListLimit,
  LIST_LIMIT_DEFAULT,
  LIST_LIMIT_MAX,
  WrittenListQuery,
} from './operator-queries';

// Each property's rules run bottom to top (BoundedString, parameter-limits.ts): given once and short enough first.

const statusMessage = (statuses: readonly string[]) => ({
  message: `status must be one of ${statuses.join(', ')}`,
});

const IsListDate = () =>
  ValidateBy({
    name: 'isListDate',
    validator: {
      validate: (value) => typeof value === 'string' && dateOf(value) !== null,
      defaultMessage: (args) => `${args!.property} ${DATE_MESSAGE}`,
    },
  });

/** The parameters both lists take but `status`; any other parameter is a 400 naming it. */
abstract class RecordListQuery {
  @ApiPropertyOptional({
    description: 'Only what this phone number (E.164) sent',
    pattern: '^\\+\\d{7,15}$',
    maxLength: MAX.phone,
  })
  @IsOptional()
  @Matches(/^\+\d{7,15}$/, { message: 'phone must be an E.164 number such as +254712345678' })
  @BoundedString('phone')
  phone?: string;

  @ApiPropertyOptional({
    description: 'Created at or after (YYYY-MM-DD or ISO 8601 date-time with zone)',
    maxLength: MAX.from,
  })
  @IsOptional()
  @IsListDate()
  @BoundedString('from')
  from?: string;

  @ApiPropertyOptional({ description: 'Created before (a bare date includes that day)', maxLength: MAX.to })
  @IsOptional()
  @IsListDate()
  @BoundedString('to')
  to?: string;

  @ApiPropertyOptional({ description: '`nextCursor` of the previous page', maxLength: MAX.cursor })
  @IsOptional()
  @ValidateBy({
    name: 'isListCursor',
    validator: {
      validate: (value) => typeof value === 'string' && idOfCursor(value) !== null,
      defaultMessage: () => 'cursor is not one this service gave out',
    },
  })
  @BoundedString('cursor')
  cursor?: string;

  @ApiPropertyOptional({
    description: `Items per page, 1–${LIST_LIMIT_MAX}`,
    type: 'integer',
    minimum: 1,
    maximum: LIST_LIMIT_MAX,
    default: LIST_LIMIT_DEFAULT,
  })
  @IsOptional()
  @ValidateBy({
    name: 'isListLimit',
    validator: {
      validate: (value) => typeof value === 'string' && isListLimit(value),
      defaultMessage: () => `limit must be an integer from 1 to ${LIST_LIMIT_MAX}`,
    },
  })
  @BoundedString('limit')
  limit?: string;
}

export class OrderListQuery extends RecordListQuery implements WrittenListQuery<OrderStatus> {
  @ApiPropertyOptional({ description: 'Only this status', enum: ORDER_STATUSES, maxLength: MAX.status })
  @IsOptional()
  @IsIn(ORDER_STATUSES, statusMessage(ORDER_STATUSES))
  @BoundedString('status')
  status?: OrderStatus;
}

export class TicketListQuery extends RecordListQuery implements WrittenListQuery<TicketStatus> {
  @ApiPropertyOptional({ description: 'Only this status', enum: TICKET_STATUSES, maxLength: MAX.status })
  @IsOptional()
  @IsIn(TICKET_STATUSES, statusMessage(TICKET_STATUSES))
  @BoundedString('status')
  status?: TicketStatus;
}

export class OrderStatusUpdate {
  @ApiProperty({ enum: ORDER_STATUSES })
  @IsIn(ORDER_STATUSES, statusMessage(ORDER_STATUSES))
  status!: OrderStatus;
}

export class TicketStatusUpdate {
  @ApiProperty({ enum: TICKET_STATUSES })
  @IsIn(TICKET_STATUSES, statusMessage(TICKET_STATUSES))
  status!: TicketStatus;
}

export class OrderNumberParameter {
  @ApiProperty({ maxLength: MAX.orderNumber })
  @BoundedString('orderNumber')
  orderNumber!: string;
}

export class TicketNumberParameter {
  @ApiProperty({ maxLength: MAX.ticketNumber })
  @BoundedString('ticketNumber')
  ticketNumber!: string;
}
