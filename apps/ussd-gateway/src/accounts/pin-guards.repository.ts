import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** The account a PIN attempt is about, when there is one: what checking the PIN and logging in need. */
export interface AccountForLogin {
  id: string;
  fullName: string;
  /** The language the account chose, if it did. */
  language: string | null;
  phoneNumber: string;
  pinHash: string;
  pinKeyId: string;
  /** Raised by every PIN change (see `changePin`). */
  pinVersion: number;
}

/** What every hop of a signed-in session checks first: whether the account got locked, or its PIN changed. */
export interface SignedInStanding {
  lockSecondsLeft: number;
  /** null: the account no longer exists. */
  pinVersion: number | null;
}

/**
 * A PIN attempt, reserved before its PIN is hashed. `ticket` orders it among every attempt on that Customer ID;
 * `position` is its place among those that count (1 = first after the last right PIN or lock), so the attempt at
 * position PIN_MAX_ATTEMPTS is the one that locked. `account` is null for a Customer ID nobody has.
 */
export type PinAttempt =
  | { kind: 'reserved'; ticket: number; position: number; account: AccountForLogin | null }
  /**
   * Every place is taken by attempts still being checked (one of them may be the right PIN and free them), or they
   * were freed while this one looked: try again.
   */
  | { kind: 'pending' }
  | { kind: 'locked'; lockSecondsLeft: number };

const lockSecondsLeft = (column: string): string =>
  `GREATEST(0, CEIL(EXTRACT(EPOCH FROM (${column} - now()))))::int`;
/**
 * How long a lock counts as pending (its attempt still being checked). Longer than any hop (HOP_TIMEOUT_MS is at
 * most 14 s); past it, a lock whose attempt never reported back (a crash, an abandoned hop) is an ordinary lock.
 */
const PENDING_GRACE = "interval '30 seconds'";
const isPending = `(lock_pending AND locked_at > now() - ${PENDING_GRACE})`;

function accountForLogin(row: Record<string, unknown>): AccountForLogin | null {
  if (row.id === null) return null;
  return {
    id: String(row.id),
    fullName: String(row.full_name),
    language: row.language === null ? null : String(row.language),
    phoneNumber: String(row.phone_number),
    pinHash: String(row.pin_hash),
    pinKeyId: String(row.pin_key_id),
    pinVersion: Number(row.pin_version),
  };
}

/**
 * Data access for PIN attempts and the locks they set, per Customer ID (known or not). Plain SQL, each change one
 * statement, so that a burst of PIN attempts, or a retry racing its original, is ordered by PostgreSQL and not by luck.
 */
@Injectable()
export class PinGuardsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Reserves one PIN attempt on `customerId` before any PIN is hashed, in one statement: at most `maxAttempts`
   * attempts are reserved between a right PIN (or the end of a lock) and the next, however many arrive at once. The
   * attempt that takes the last place locks the Customer ID for `lockSeconds` right away, so nothing can slip in
   * while it is being checked; the lock is `pending` until that attempt is found wrong (confirmLock), and a right
   * PIN lifts it again. A replay of the last attempt (same `attemptKey`, nobody tried in between) gets its own
   * reservation back instead of a new one, so a hop retried after a failure is not charged twice. Works the same for
   * a Customer ID that has no account.
   */
  async reservePinAttempt(
    customerId: string,
    attemptKey: string,
    maxAttempts: number,
    lockSeconds: number,
  ): Promise<PinAttempt> {
    // A lock that has run out starts a fresh count: everything reserved before it is cleared.
    const expired = 'g.locked_until <= now()';
    const position = `CASE WHEN ${expired} THEN 1 ELSE g.reserved_total + 1 - g.cleared_through END`;
    const locks = `${position} >= $3`;
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `WITH attempt AS (
         INSERT INTO ussd_pin_guards AS g
           (customer_id, reserved_total, cleared_through, locked_until, lock_pending, lock_ticket, locked_at, last_key, last_ticket, last_position)
         VALUES ($1, 1, 0, CASE WHEN $3 <= 1 THEN now() + make_interval(secs => $4) END, $3 <= 1,
                 CASE WHEN $3 <= 1 THEN 1 END, CASE WHEN $3 <= 1 THEN now() END, $2, 1, 1)
         ON CONFLICT (customer_id) DO UPDATE SET
           reserved_total = g.reserved_total + 1,
           cleared_through = CASE WHEN ${expired} THEN g.reserved_total ELSE g.cleared_through END,
           locked_until = CASE WHEN ${locks} THEN now() + make_interval(secs => $4) END,
           lock_pending = ${locks},
           lock_ticket = CASE WHEN ${locks} THEN g.reserved_total + 1 END,
           locked_at = CASE WHEN ${locks} THEN now() END,
           last_key = $2,
           last_ticket = g.reserved_total + 1,
           last_position = ${position},
           updated_at = now()
         WHERE (g.locked_until IS NULL OR ${expired}) AND g.last_key IS DISTINCT FROM $2
         RETURNING last_ticket AS ticket, last_position AS position
       )
       SELECT attempt.ticket, attempt.position, a.id, a.full_name, a.language, p.phone_number, a.pin_hash, a.pin_key_id, a.pin_version
         FROM (SELECT 1) AS one
         LEFT JOIN attempt ON true
         LEFT JOIN (ussd_accounts a JOIN ussd_phones p ON p.id = a.phone_id) ON a.customer_id = $1`,
      [customerId, attemptKey, maxAttempts, lockSeconds],
    );
    const row = rows[0]!;
    const account = accountForLogin(row);
    if (row.ticket !== null)
      return { kind: 'reserved', ticket: Number(row.ticket), position: Number(row.position), account };
    return this.unreserved(customerId, attemptKey, account);
  }

  private async unreserved(
    customerId: string,
    attemptKey: string,
    account: AccountForLogin | null,
  ): Promise<PinAttempt> {
    // Nothing reserved: the Customer ID is locked, or this is a replay of its last attempt. A statement of its own,
    // so it sees what the reservation saw (a concurrent attempt may have changed the row after this one's snapshot).
    const [guard]: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT last_key = $2 AS replay, last_ticket, last_position, ${isPending} AS pending,
              ${lockSecondsLeft('locked_until')} AS lock_seconds_left
         FROM ussd_pin_guards WHERE customer_id = $1`,
      [customerId, attemptKey],
    );
    if (guard?.replay === true)
      return {
        kind: 'reserved',
        ticket: Number(guard.last_ticket),
        position: Number(guard.last_position),
        account,
      };
    // Pending, or unlocked since the reservation looked (a right PIN freed the places): worth another try.
    if (guard?.pending === true || Number(guard?.lock_seconds_left ?? 0) === 0) return { kind: 'pending' };
    return { kind: 'locked', lockSecondsLeft: Number(guard!.lock_seconds_left) };
  }

  /** The attempt that took the last place (`ticket`) had a wrong PIN: its lock is no longer pending but settled. */
  async confirmLock(customerId: string, ticket: number): Promise<void> {
    await this.dataSource.query(
      'UPDATE ussd_pin_guards SET lock_pending = false, updated_at = now() WHERE customer_id = $1 AND lock_ticket = $2',
      [customerId, ticket],
    );
  }

  /**
   * A right PIN on attempt `ticket`: clears the attempts reserved up to and including it (never those reserved
   * after it, which still count), lifts the lock when fewer than `maxAttempts` remain, and records a log-in from a
   * phone other than the account's. Idempotent: a replay clears nothing more and records nothing twice.
   */
  async recordRightPin(
    customerId: string,
    ticket: number,
    maxAttempts: number,
    otherPhone: { accountId: string; phoneNumber: string; sessionId: string; attemptKey: string } | null,
  ): Promise<void> {
    await this.dataSource.query(
      `WITH cleared AS (
         UPDATE ussd_pin_guards
            SET cleared_through = GREATEST(cleared_through, $2),
                locked_until = CASE WHEN reserved_total - GREATEST(cleared_through, $2) < $3 THEN NULL ELSE locked_until END,
                lock_pending = CASE WHEN reserved_total - GREATEST(cleared_through, $2) < $3 THEN false ELSE lock_pending END,
                updated_at = now()
          WHERE customer_id = $1
          RETURNING 1
       ), visit AS (
         INSERT INTO ussd_other_phone_logins (account_id, phone_number, session_id, check_key)
         SELECT $4::uuid, $5::varchar, $6::varchar, $7::varchar WHERE $4::uuid IS NOT NULL
         ON CONFLICT (check_key) DO NOTHING
         RETURNING 1
       )
       SELECT (SELECT count(*) FROM cleared) AS cleared, (SELECT count(*) FROM visit) AS visits`,
      [
        customerId,
        ticket,
        maxAttempts,
        otherPhone?.accountId ?? null,
        otherPhone?.phoneNumber ?? null,
        otherPhone?.sessionId ?? null,
        otherPhone?.attemptKey ?? null,
      ],
    );
  }

  /**
   * Seconds until the lock of `customerId` ends; 0 when it is not locked, or while its lock is pending (the attempt
   * that set it may yet prove to be the owner logging in).
   */
  async lockSecondsLeft(customerId: string): Promise<number> {
    const [row]: Array<{ lock_seconds_left: number }> = await this.dataSource.query(
      `SELECT CASE WHEN ${isPending} THEN 0 ELSE ${lockSecondsLeft('locked_until')} END AS lock_seconds_left
         FROM ussd_pin_guards WHERE customer_id = $1`,
      [customerId],
    );
    return Number(row?.lock_seconds_left ?? 0);
  }

  /** One indexed read per signed-in hop: the account's lock (0 while pending, as `lockSecondsLeft`) and PIN version. */
  async signedInStanding(customerId: string): Promise<SignedInStanding> {
    const [row]: Array<{ lock_seconds_left: number | null; pin_version: number }> =
      await this.dataSource.query(
        `SELECT a.pin_version,
              (SELECT CASE WHEN ${isPending} THEN 0 ELSE ${lockSecondsLeft('locked_until')} END
                 FROM ussd_pin_guards WHERE customer_id = a.customer_id) AS lock_seconds_left
         FROM ussd_accounts a
        WHERE a.customer_id = $1`,
        [customerId],
      );
    if (!row) return { lockSecondsLeft: await this.lockSecondsLeft(customerId), pinVersion: null };
    return { lockSecondsLeft: Number(row.lock_seconds_left ?? 0), pinVersion: Number(row.pin_version) };
  }
}
