import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * - `ussd_products`: the fuel catalogue the order menu lists (active ones, by `sort_order`); `kind` names the content
 *   key `product.<kind>` that translates it. Seeded with pellets 10 kg / 25 kg and briquettes 10 kg in KES; operators
 *   change prices and products in SQL (an order keeps the price it was placed at).
 * - `ussd_orders`, `ussd_tickets`: what households order and report, each with a status operators move along, and
 *   the idempotency key of the hop that made it (unique: the aggregator's retry finds the first one). No PIN, no
 *   session input: the PIN that confirmed an order is checked and forgotten.
 */
export class OrdersAndTickets1765900000001 implements MigrationInterface {
  name = 'OrdersAndTickets1765900000001';

  async up(runner: QueryRunner): Promise<void> {
    await runner.query(`
      CREATE TABLE ussd_products (
        code varchar(32) PRIMARY KEY,
        kind varchar(32) NOT NULL,
        size_kg numeric(7, 2) NOT NULL,
        price_minor integer NOT NULL,
        currency char(3) NOT NULL,
        active boolean NOT NULL DEFAULT true,
        sort_order integer NOT NULL DEFAULT 0,
        CONSTRAINT ck_ussd_products_code CHECK (code ~ '^[a-z0-9-]+$'),
        CONSTRAINT ck_ussd_products_kind CHECK (kind ~ '^[a-zA-Z]+$'),
        CONSTRAINT ck_ussd_products_size CHECK (size_kg > 0),
        CONSTRAINT ck_ussd_products_price CHECK (price_minor >= 0),
        CONSTRAINT ck_ussd_products_currency CHECK (currency ~ '^[A-Z]{3}$')
      )`);
    await runner.query(`
      INSERT INTO ussd_products (code, kind, size_kg, price_minor, currency, sort_order) VALUES
        ('pellets-10kg', 'pellets', 10, 25000, 'KES', 1),
        ('pellets-25kg', 'pellets', 25, 60000, 'KES', 2),
        ('briquettes-10kg', 'briquettes', 10, 18000, 'KES', 3)`);
    await runner.query(`
      CREATE TABLE ussd_orders (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES ussd_accounts (id) ON DELETE RESTRICT,
        phone_number varchar(16) NOT NULL,
        product_code varchar(32) NOT NULL REFERENCES ussd_products (code) ON DELETE RESTRICT,
        quantity integer NOT NULL,
        unit_price_minor integer NOT NULL,
        total_minor integer NOT NULL,
        currency char(3) NOT NULL,
        delivery_point varchar(40) NOT NULL,
        status varchar(16) NOT NULL DEFAULT 'placed',
        idempotency_key varchar(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_orders_idempotency_key UNIQUE (idempotency_key),
        CONSTRAINT ck_ussd_orders_quantity CHECK (quantity BETWEEN 1 AND 100),
        CONSTRAINT ck_ussd_orders_status CHECK (status IN ('placed', 'dispatched', 'delivered', 'cancelled'))
      )`);
    await runner.query('CREATE INDEX ix_ussd_orders_account ON ussd_orders (account_id, id)');
    await runner.query('CREATE INDEX ix_ussd_orders_created ON ussd_orders (created_at, id)');
    await runner.query(`
      CREATE TABLE ussd_tickets (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id uuid NOT NULL REFERENCES ussd_accounts (id) ON DELETE RESTRICT,
        phone_number varchar(16) NOT NULL,
        category varchar(16) NOT NULL,
        note varchar(80),
        status varchar(16) NOT NULL DEFAULT 'open',
        idempotency_key varchar(64) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_ussd_tickets_idempotency_key UNIQUE (idempotency_key),
        CONSTRAINT ck_ussd_tickets_category CHECK (category IN ('wont_light', 'smoke', 'broken_part', 'other')),
        CONSTRAINT ck_ussd_tickets_status CHECK (status IN ('open', 'in_progress', 'resolved', 'closed'))
      )`);
    await runner.query('CREATE INDEX ix_ussd_tickets_created ON ussd_tickets (created_at, id)');
  }

  async down(runner: QueryRunner): Promise<void> {
    await runner.query('DROP TABLE ussd_tickets');
    await runner.query('DROP TABLE ussd_orders');
    await runner.query('DROP TABLE ussd_products');
  }
}
