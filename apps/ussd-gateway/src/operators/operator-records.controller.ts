import { Body, Controller, Get, HttpCode, Param, Patch, Query, UseGuards } from '@nestjs/common';
import { DomainError, NotFoundError } from '@dmrv/errors';
import {
  idOfNumber,
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  TICKET_STATUSES,
  TICKET_TRANSITIONS,
} from '../orders/order-rules';
import {
  OperatorRecordsRepository,
  OrderRecord,
  StatusChange,
  TicketRecord,
} from '../orders/orders.repository';
import { buildOperatorOpenApiDocument } from './operator-openapi';
import { cursorOf, parseListQuery, parseStatusUpdate } from './operator-queries';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { refuseOverlong } from '../contract/parameter-limits';

export interface Page<R> {
  items: R[];
  /** Pass as `cursor` for the next (older) page; null on the last one. */
  nextCursor: string | null;
}

class TransitionRefusedError extends DomainError {
  constructor(message: string) {
    super('TRANSITION_REFUSED', message, 409);
  }
}

/** The statuses from which `to` may be reached. */
const sourcesOf = <S extends string>(transitions: Readonly<Record<S, readonly S[]>>, to: S): S[] =>
  (Object.keys(transitions) as S[]).filter((from) => transitions[from].includes(to));

/** A cursor only when older rows follow: a full last page says null like a short one. */
function pageOf<R>({ rows, more }: { rows: R[]; more: boolean }, idOf: (row: R) => number | null): Page<R> {
  const last = rows[rows.length - 1];
  return { items: rows, nextCursor: more && last ? cursorOf(idOf(last)!) : null };
}

function outcome<R>(change: StatusChange<R>, what: string, to: string): R {
  if (change.kind === 'changed') return change.record;
  if (change.kind === 'missing') throw new NotFoundError(`${what} not found`);
  throw new TransitionRefusedError(`${what} cannot go from ${change.current} to ${to}`);
}

/** Orders and tickets for the programme's staff: read, filter, page, move along (README, "Operator endpoints"). */
@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OperatorRecordsController {
  private readonly document = buildOperatorOpenApiDocument();

  constructor(private readonly records: OperatorRecordsRepository) {}

  @Get('orders')
  async orders(@Query() raw: Record<string, unknown>): Promise<Page<OrderRecord>> {
    const query = parseListQuery(raw, ORDER_STATUSES);
    return pageOf(await this.records.listOrders(query), (order) => idOfNumber('F', order.orderNumber));
  }

  @Patch('orders/:orderNumber')
  @HttpCode(200)
  async moveOrder(@Param('orderNumber') number: string, @Body() body: unknown): Promise<OrderRecord> {
    refuseOverlong({ orderNumber: number });
    const to = parseStatusUpdate(body, ORDER_STATUSES);
    const id = idOfNumber('F', number);
    if (id === null) throw new NotFoundError(`order ${number.slice(0, 20)} not found`);
    return outcome(
      await this.records.moveOrder(id, to, sourcesOf(ORDER_TRANSITIONS, to)),
      `order ${number}`,
      to,
    );
  }

  @Get('tickets')
  async tickets(@Query() raw: Record<string, unknown>): Promise<Page<TicketRecord>> {
    const query = parseListQuery(raw, TICKET_STATUSES);
    return pageOf(await this.records.listTickets(query), (ticket) => idOfNumber('T', ticket.ticketNumber));
  }

  @Patch('tickets/:ticketNumber')
  @HttpCode(200)
  async moveTicket(@Param('ticketNumber') number: string, @Body() body: unknown): Promise<TicketRecord> {
    refuseOverlong({ ticketNumber: number });
    const to = parseStatusUpdate(body, TICKET_STATUSES);
    const id = idOfNumber('T', number);
    if (id === null) throw new NotFoundError(`ticket ${number.slice(0, 20)} not found`);
    return outcome(
      await this.records.moveTicket(id, to, sourcesOf(TICKET_TRANSITIONS, to)),
      `ticket ${number}`,
      to,
    );
  }

  @Get('openapi.json')
  openApi(): Record<string, unknown> {
    return this.document;
  }
}
