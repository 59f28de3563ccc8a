import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { orderNumber, OrderStatus, TicketCategory, ticketNumber, TicketStatus } from '../domain/order-rules';

export interface Product {
  code: string;
  kind: string;
  sizeKg: number;
  priceMinor: number;
  currency: string;
}

export interface PlacedOrder {
  id: number;
  totalMinor: number;
  currency: string;
}

/** An order as its household sees it on "My orders". */
export interface OrderLine {
  id: number;
  placedAt: string;
  quantity: number;
  kind: string;
  sizeKg: number;
  status: OrderStatus;
}

export interface NewOrder {
  customerId: string;
  phoneNumber: string;
  productCode: string;
  quantity: number;
  deliveryPoint: string;
  /** The confirming hop's idempotency key: its retry finds this order instead of placing another. */
  key: string;
}

export interface NewTicket {
  customerId: string;
  phoneNumber: string;
  category: TicketCategory;
  note: string | null;
  key: string;
}

const productOf = (row: Record<string, unknown>): Product => ({
  code: String(row.code),
  kind: String(row.kind),
  sizeKg: Number(row.size_kg),
  priceMinor: Number(row.price_minor),
  currency: String(row.currency),
});

/**
 * What households do: the catalogue, orders and tickets. Plain SQL; each write is one statement keyed by the hop
 * that asked for it (ON CONFLICT on the key), so a retried confirmation, even one racing its original, makes one row.
 */
@Injectable()
export class OrdersRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async activeProducts(): Promise<Product[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      'SELECT code, kind, size_kg, price_minor, currency FROM ussd_products WHERE active ORDER BY sort_order, code',
    );
    return rows.map(productOf);
  }

  /** Where the account's last order went: offered again on the next one. */
  async lastDeliveryPoint(customerId: string): Promise<string | null> {
    const [row]: Array<{ delivery_point: string }> = await this.dataSource.query(
      `SELECT o.delivery_point FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id
        WHERE a.customer_id = $1 ORDER BY o.id DESC LIMIT 1`,
      [customerId],
    );
    return row?.delivery_point ?? null;
  }

  /**
   * Places the order at the product's current price, or returns the order this key already placed. Null when the
   * account or an active product of that code is gone.
   */
  async placeOrder(order: NewOrder): Promise<PlacedOrder | null> {
    const placed: Array<Record<string, unknown>> = await this.dataSource.query(
      `INSERT INTO ussd_orders (account_id, phone_number, product_code, quantity, unit_price_minor, total_minor, currency, delivery_point, idempotency_key)
       SELECT a.id, $2, p.code, $4, p.price_minor, p.price_minor * $4, p.currency, $5, $6
         FROM ussd_accounts a, ussd_products p
        WHERE a.customer_id = $1 AND p.code = $3 AND p.active
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING id, total_minor, currency`,
      [
        order.customerId,
        order.phoneNumber,
        order.productCode,
        order.quantity,
        order.deliveryPoint,
        order.key,
      ],
    );
    // A statement of its own: it sees the row a concurrent retry committed, which the INSERT's snapshot did not.
    const rows =
      placed.length > 0
        ? placed
        : await this.dataSource.query(
            'SELECT id, total_minor, currency FROM ussd_orders WHERE idempotency_key = $1',
            [order.key],
          );
    const row = rows[0] as Record<string, unknown> | undefined;
    return row
      ? { id: Number(row.id), totalMinor: Number(row.total_minor), currency: String(row.currency) }
      : null;
  }

  /** The account's latest orders, newest first. */
  async recentOrders(customerId: string, limit: number): Promise<OrderLine[]> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT o.id, o.created_at, o.quantity, o.status, p.kind, p.size_kg
         FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id JOIN ussd_products p ON p.code = o.product_code
        WHERE a.customer_id = $1 ORDER BY o.id DESC LIMIT $2`,
      [customerId, limit],
    );
    return rows.map((row) => ({
      id: Number(row.id),
      placedAt: new Date(row.created_at as string).toISOString(),
      quantity: Number(row.quantity),
      kind: String(row.kind),
      sizeKg: Number(row.size_kg),
      status: String(row.status) as OrderStatus,
    }));
  }

  /** Opens the ticket, or returns the id of the one this key already opened; null when the account is gone. */
  async createTicket(ticket: NewTicket): Promise<number | null> {
    const created: Array<{ id: string }> = await this.dataSource.query(
      `INSERT INTO ussd_tickets (account_id, phone_number, category, note, idempotency_key)
       SELECT a.id, $2, $3, $4, $5 FROM ussd_accounts a WHERE a.customer_id = $1
       ON CONFLICT (idempotency_key) DO NOTHING
       RETURNING id`,
      [ticket.customerId, ticket.phoneNumber, ticket.category, ticket.note, ticket.key],
    );
    const rows =
      created.length > 0
        ? created
        : await this.dataSource.query('SELECT id FROM ussd_tickets WHERE idempotency_key = $1', [ticket.key]);
    const row = (rows as Array<{ id: string }>)[0];
    return row ? Number(row.id) : null;
  }
}

/** What the operator lists filter by (operators/ parses it from the query string). */
export interface ListQuery<S extends string> {
  status?: S;
  phoneNumber?: string;
  /** Created at or after / before this instant. */
  from?: Date;
  to?: Date;
  /** Only rows older than this id (the previous page's last). */
  before?: number;
  limit: number;
}

/** An order as operators see it. */
export interface OrderRecord {
  orderNumber: string;
  customerId: string;
  phoneNumber: string;
  productCode: string;
  quantity: number;
  unitPriceMinor: number;
  totalMinor: number;
  currency: string;
  deliveryPoint: string;
  status: OrderStatus;
  createdAt: string;
  updatedAt: string;
}

/** A ticket as operators see it. */
export interface TicketRecord {
  ticketNumber: string;
  customerId: string;
  phoneNumber: string;
  category: TicketCategory;
  note: string | null;
  status: TicketStatus;
  createdAt: string;
  updatedAt: string;
}

export type StatusChange<R> =
  | { kind: 'changed'; record: R }
  | { kind: 'missing' }
  | { kind: 'refused'; current: string };

const iso = (value: unknown): string => new Date(value as string).toISOString();

const orderRecordOf = (row: Record<string, unknown>): OrderRecord => ({
  orderNumber: orderNumber(String(row.id)),
  customerId: String(row.customer_id),
  phoneNumber: String(row.phone_number),
  productCode: String(row.product_code),
  quantity: Number(row.quantity),
  unitPriceMinor: Number(row.unit_price_minor),
  totalMinor: Number(row.total_minor),
  currency: String(row.currency),
  deliveryPoint: String(row.delivery_point),
  status: String(row.status) as OrderStatus,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const ticketRecordOf = (row: Record<string, unknown>): TicketRecord => ({
  ticketNumber: ticketNumber(String(row.id)),
  customerId: String(row.customer_id),
  phoneNumber: String(row.phone_number),
  category: String(row.category) as TicketCategory,
  note: row.note === null ? null : String(row.note),
  status: String(row.status) as TicketStatus,
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
});

const ORDER_COLUMNS = `o.id, a.customer_id, o.phone_number, o.product_code, o.quantity, o.unit_price_minor, o.total_minor, o.currency,
  o.delivery_point, o.status, o.created_at, o.updated_at`;
const TICKET_COLUMNS =
  'o.id, a.customer_id, o.phone_number, o.category, o.note, o.status, o.created_at, o.updated_at';

/**
 * What operators read and change. Lists go newest first by id, keyset-paged (`before`), so a page never repeats or
 * skips a row because others were added. A status change is one statement that moves the row only from a status
 * allowed to reach the new one: two operators racing cannot take an order through a transition the rules refuse.
 */
@Injectable()
export class OperatorRecordsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** At most `query.limit` orders, and whether older ones follow (one row more is read to know). */
  async listOrders(query: ListQuery<OrderStatus>): Promise<{ rows: OrderRecord[]; more: boolean }> {
    const rows = await this.list('ussd_orders', ORDER_COLUMNS, query);
    return { rows: rows.slice(0, query.limit).map(orderRecordOf), more: rows.length > query.limit };
  }

  async listTickets(query: ListQuery<TicketStatus>): Promise<{ rows: TicketRecord[]; more: boolean }> {
    const rows = await this.list('ussd_tickets', TICKET_COLUMNS, query);
    return { rows: rows.slice(0, query.limit).map(ticketRecordOf), more: rows.length > query.limit };
  }

  async moveOrder(
    id: number,
    to: OrderStatus,
    allowedFrom: readonly OrderStatus[],
  ): Promise<StatusChange<OrderRecord>> {
    const change = await this.move('ussd_orders', ORDER_COLUMNS, id, to, allowedFrom);
    return change.kind === 'changed' ? { kind: 'changed', record: orderRecordOf(change.row) } : change;
  }

  async moveTicket(
    id: number,
    to: TicketStatus,
    allowedFrom: readonly TicketStatus[],
  ): Promise<StatusChange<TicketRecord>> {
    const change = await this.move('ussd_tickets', TICKET_COLUMNS, id, to, allowedFrom);
    return change.kind === 'changed' ? { kind: 'changed', record: ticketRecordOf(change.row) } : change;
  }

  private list(
    table: 'ussd_orders' | 'ussd_tickets',
    columns: string,
    query: ListQuery<string>,
  ): Promise<Array<Record<string, unknown>>> {
    return this.dataSource.query(
      `SELECT ${columns} FROM ${table} o JOIN ussd_accounts a ON a.id = o.account_id
        WHERE ($1::varchar IS NULL OR o.status = $1) AND ($2::varchar IS NULL OR o.phone_number = $2)
          AND ($3::timestamptz IS NULL OR o.created_at >= $3) AND ($4::timestamptz IS NULL OR o.created_at < $4)
          AND ($5::bigint IS NULL OR o.id < $5)
        ORDER BY o.id DESC LIMIT $6`,
      [
        query.status ?? null,
        query.phoneNumber ?? null,
        query.from ?? null,
        query.to ?? null,
        query.before ?? null,
        query.limit + 1,
      ],
    );
  }

  private async move(
    table: 'ussd_orders' | 'ussd_tickets',
    columns: string,
    id: number,
    to: string,
    allowedFrom: readonly string[],
  ): Promise<
    | { kind: 'changed'; row: Record<string, unknown> }
    | { kind: 'missing' }
    | { kind: 'refused'; current: string }
  > {
    const [moved]: Array<Record<string, unknown>> = await this.dataSource.query(
      `WITH moved AS (
         UPDATE ${table} SET status = $2, updated_at = now() WHERE id = $1 AND status = ANY($3::varchar[]) RETURNING *
       )
       SELECT ${columns} FROM moved o JOIN ussd_accounts a ON a.id = o.account_id`,
      [id, to, [...allowedFrom]],
    );
    if (moved) return { kind: 'changed', row: moved };
    const [current]: Array<{ status: string }> = await this.dataSource.query(
      `SELECT status FROM ${table} WHERE id = $1`,
      [id],
    );
    return current ? { kind: 'refused', current: current.status } : { kind: 'missing' };
  }
}
