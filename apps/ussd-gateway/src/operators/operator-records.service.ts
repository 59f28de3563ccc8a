import { Injectable } from '@nestjs/common';
import { DomainError, NotFoundError } from '@dmrv/errors';
import {
  idOfNumber,
  ORDER_TRANSITIONS,
  OrderStatus,
  TICKET_TRANSITIONS,
  TicketStatus,
} from '../domain/order-rules';
import {
  ListQuery,
  OperatorRecordsRepository,
  OrderRecord,
  StatusChange,
  TicketRecord,
} from '../orders/orders.repository';
import type { Page } from './operator-record-views';
import { cursorOf, listQueryOf, WrittenListQuery } from './operator-queries';

class TransitionRefusedError extends DomainError {
  constructor(message: string) {
    super('TRANSITION_REFUSED', message, 409);
  }
}

/** What tells orders and tickets apart for operators; everything else is the same for both. */
export interface RecordKind<S extends string, R> {
  what: 'order' | 'ticket';
  prefix: 'F' | 'T';
  transitions: Readonly<Record<S, readonly S[]>>;
  numberOf(record: R): string;
  list(records: OperatorRecordsRepository, query: ListQuery<S>): Promise<{ rows: R[]; more: boolean }>;
  move(records: OperatorRecordsRepository, id: number, to: S, from: S[]): Promise<StatusChange<R>>;
}

export const ORDERS: RecordKind<OrderStatus, OrderRecord> = {
  what: 'order',
  prefix: 'F',
  transitions: ORDER_TRANSITIONS,
  numberOf: (order) => order.orderNumber,
  list: (records, query) => records.listOrders(query),
  move: (records, id, to, from) => records.moveOrder(id, to, from),
};

export const TICKETS: RecordKind<TicketStatus, TicketRecord> = {
  what: 'ticket',
  prefix: 'T',
  transitions: TICKET_TRANSITIONS,
  numberOf: (ticket) => ticket.ticketNumber,
  list: (records, query) => records.listTickets(query),
  move: (records, id, to, from) => records.moveTicket(id, to, from),
};

/** `placed → dispatched | cancelled; …`, for the document. */
export const transitionsText = <S extends string>(kind: RecordKind<S, unknown>): string =>
  (Object.entries(kind.transitions) as Array<[S, readonly S[]]>)
    .map(([from, to]) => `${from} → ${to.length > 0 ? to.join(' | ') : '(final)'}`)
    .join('; ');

/** The statuses from which `to` may be reached. */
const sourcesOf = <S extends string>(transitions: Readonly<Record<S, readonly S[]>>, to: S): S[] =>
  (Object.keys(transitions) as S[]).filter((from) => transitions[from].includes(to));

/** Orders and tickets for the programme's staff: list (filtered, keyset-paged) and move along their transitions. */
@Injectable()
export class OperatorRecordsService {
  constructor(private readonly records: OperatorRecordsRepository) {}

  /** A cursor only when older rows follow: a full last page says null like a short one. */
  async list<S extends string, R>(kind: RecordKind<S, R>, written: WrittenListQuery<S>): Promise<Page<R>> {
    const { rows, more } = await kind.list(this.records, listQueryOf(written));
    const last = rows[rows.length - 1];
    return {
      items: rows,
      nextCursor: more && last ? cursorOf(idOfNumber(kind.prefix, kind.numberOf(last))!) : null,
    };
  }

  async move<S extends string, R>(kind: RecordKind<S, R>, number: string, to: S): Promise<R> {
    const id = idOfNumber(kind.prefix, number);
    if (id === null) throw new NotFoundError(`${kind.what} ${number.slice(0, 20)} not found`);
    const change = await kind.move(this.records, id, to, sourcesOf(kind.transitions, to));
    if (change.kind === 'changed') return change.record;
    if (change.kind === 'missing') throw new NotFoundError(`${kind.what} ${number} not found`);
    throw new TransitionRefusedError(`${kind.what} ${number} cannot go from ${change.current} to ${to}`);
  }
}
