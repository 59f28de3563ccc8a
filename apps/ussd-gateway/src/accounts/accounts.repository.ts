import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';

export interface AccountRow {
  id: string;
  customerId: string;
  fullName: string;
  email: string | null;
  phoneNumber: string;
  pinHash: string;
  pinKeyId: string;
}

export interface NewAccount extends Omit<AccountRow, 'id'> {
  /** The creating hop's idempotency key: a replay of that hop finds this account instead of making another. */
  creationKey: string;
  /** The language the account was created in: it follows the account to any phone until it chooses another. */
  language?: string | null;
}

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

export class CustomerIdTakenError extends Error {}

const UNIQUE_VIOLATION = '23505';
const UNDEFINED_TABLE = '42P01';

const lockSecondsLeft = (column: string): string =>
  `GREATEST(0, CEIL(EXTRACT(EPOCH FROM (${column} - now()))))::int`;
/**
 * How long a lock counts as pending (its attempt still being checked). Longer than any hop (HOP_TIMEOUT_MS is at
 * most 14 s); past it, a lock whose attempt never reported back (a crash, an abandoned hop) is an ordinary lock.
 */
const PENDING_GRACE = "interval '30 seconds'";
const isPending = `(lock_pending AND locked_at > now() - ${PENDING_GRACE})`;

/**
 * Data access for accounts, phones and PIN attempts. Plain SQL, each change one statement, so that concurrent hops
 * (a burst of PIN attempts, a retry racing its original) are ordered by PostgreSQL and not by luck.
 */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Creates the account (and its phone, if new) in one statement, or returns the Customer ID of the account this
   * `creationKey` already created. Throws CustomerIdTakenError when the drawn Customer ID exists.
   */
  async create(account: NewAccount): Promise<string> {
    let rows: Array<{ customer_id: string }>;
    try {
      rows = await this.dataSource.query(
        `WITH phone AS (
           INSERT INTO ussd_phones (phone_number) VALUES ($1)
           ON CONFLICT (phone_number) DO UPDATE SET last_seen_at = now()
           RETURNING id
         )
         INSERT INTO ussd_accounts (customer_id, full_name, email, phone_id, pin_hash, pin_key_id, creation_key, language)
         SELECT $2, $3, $4, phone.id, $5, $6, $7, $8 FROM phone
         ON CONFLICT (creation_key) DO NOTHING
         RETURNING customer_id`,
        [
          account.phoneNumber,
          account.customerId,
          account.fullName,
          account.email,
          account.pinHash,
          account.pinKeyId,
          account.creationKey,
          account.language ?? null,
        ],
      );
    } catch (error) {
      const driverError =
        error instanceof QueryFailedError
          ? (error.driverError as { code?: string; constraint?: string })
          : undefined;
      if (
        driverError?.code === UNIQUE_VIOLATION &&
        driverError.constraint === 'uq_ussd_accounts_customer_id'
      ) {
        throw new CustomerIdTakenError(account.customerId);
      }
      throw error;
    }
    if (rows[0]) return rows[0].customer_id;
    const [existing]: Array<{ customer_id: string }> = await this.dataSource.query(
      'SELECT customer_id FROM ussd_accounts WHERE creation_key = $1',
      [account.creationKey],
    );
    if (!existing) throw new Error('account creation conflicted on its key but no account has it');
    return existing.customer_id;
  }

  async findByCustomerId(customerId: string): Promise<AccountRow | null> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT a.id, a.customer_id, a.full_name, a.email, p.phone_number, a.pin_hash, a.pin_key_id
         FROM ussd_accounts a JOIN ussd_phones p ON p.id = a.phone_id
        WHERE a.customer_id = $1`,
      [customerId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      id: String(row.id),
      customerId: String(row.customer_id),
      fullName: String(row.full_name),
      email: row.email === null ? null : String(row.email),
      phoneNumber: String(row.phone_number),
      pinHash: String(row.pin_hash),
      pinKeyId: String(row.pin_key_id),
    };
  }

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
    const account: AccountForLogin | null =
      row.id === null
        ? null
        : {
            id: String(row.id),
            fullName: String(row.full_name),
            language: row.language === null ? null : String(row.language),
            phoneNumber: String(row.phone_number),
            pinHash: String(row.pin_hash),
            pinKeyId: String(row.pin_key_id),
            pinVersion: Number(row.pin_version),
          };
    if (row.ticket !== null)
      return { kind: 'reserved', ticket: Number(row.ticket), position: Number(row.position), account };
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

  /**
   * Writes the new PIN of `customerId` over version `expectedVersion` (the one its old PIN was checked against; null
   * for a session that checked it before versions existed: unconditionally) and
   * records the change under `changeKey`, in one statement. The version check is a compare-and-set: of two changes
   * racing, the second waits for the first's row lock, then finds the version moved and writes nothing. Returns the
   * new version; 'replayed' when this key already changed it (nothing written again); 'stale' when the PIN was
   * changed since `expectedVersion`; 'missing' when there is no such account.
   */
  async changePin(
    customerId: string,
    changeKey: string,
    pinHash: string,
    pinKeyId: string,
    expectedVersion: number | null,
  ): Promise<{ kind: 'replaced' | 'replayed'; pinVersion: number } | { kind: 'stale' | 'missing' }> {
    const [row]: Array<{ pin_version: number | null }> = await this.dataSource.query(
      `WITH written AS (
         UPDATE ussd_accounts SET pin_hash = $3, pin_key_id = $4, pin_version = pin_version + 1, updated_at = now()
          WHERE customer_id = $1 AND pin_version = COALESCE($5::int, pin_version)
            AND NOT EXISTS (SELECT 1 FROM ussd_pin_changes WHERE idempotency_key = $2)
         RETURNING id, pin_version
       ), change AS (
         INSERT INTO ussd_pin_changes (idempotency_key, account_id)
         SELECT $2, id FROM written
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING account_id
       )
       SELECT (SELECT pin_version FROM written) AS pin_version, (SELECT count(*) FROM change) AS changes`,
      [customerId, changeKey, pinHash, pinKeyId, expectedVersion],
    );
    if (row?.pin_version != null) return { kind: 'replaced', pinVersion: Number(row.pin_version) };
    // Statements of their own: they see a change committed by a concurrent replay that this one's snapshot missed.
    const [replayed]: Array<{ pin_version: number }> = await this.dataSource.query(
      'SELECT a.pin_version FROM ussd_pin_changes c JOIN ussd_accounts a ON a.id = c.account_id WHERE c.idempotency_key = $1',
      [changeKey],
    );
    if (replayed) return { kind: 'replayed', pinVersion: Number(replayed.pin_version) };
    const exists: unknown[] = await this.dataSource.query(
      'SELECT 1 FROM ussd_accounts WHERE customer_id = $1',
      [customerId],
    );
    return exists.length > 0 ? { kind: 'stale' } : { kind: 'missing' };
  }

  /** The language last chosen on `phoneNumber`, or null. */
  async phoneLanguage(phoneNumber: string): Promise<string | null> {
    const [row]: Array<{ language: string | null }> = await this.dataSource.query(
      'SELECT language FROM ussd_phones WHERE phone_number = $1',
      [phoneNumber],
    );
    return row?.language ?? null;
  }

  /** Phones that chose a language, in phone-number order after `after`, at most `limit`: the copy's fill reads these. */
  async phoneLanguagesAfter(
    after: string,
    limit: number,
  ): Promise<Array<{ phoneNumber: string; language: string }>> {
    const rows: Array<{ phone_number: string; language: string }> = await this.dataSource.query(
      'SELECT phone_number, language FROM ussd_phones WHERE language IS NOT NULL AND phone_number > $1 ORDER BY phone_number LIMIT $2',
      [after, limit],
    );
    return rows.map((row) => ({ phoneNumber: row.phone_number, language: row.language }));
  }

  /**
   * Remembers `language` for `phoneNumber` (a phone row is made if the phone has none) and, when given, for the
   * account `customerId`; one statement (a data-modifying WITH always runs).
   */
  async rememberLanguage(phoneNumber: string, customerId: string | null, language: string): Promise<void> {
    await this.dataSource.query(
      `WITH phone AS (
         INSERT INTO ussd_phones (phone_number, language) VALUES ($1, $3)
         ON CONFLICT (phone_number) DO UPDATE SET language = EXCLUDED.language, last_seen_at = now()
         RETURNING id
       )
       UPDATE ussd_accounts SET language = $3, updated_at = now() WHERE customer_id = $2`,
      [phoneNumber, customerId, language],
    );
  }

  /** Stores a PIN re-encrypted under another key (the same PIN: a rotation, not a change). */
  async rewrapPin(id: string, pinHash: string, pinKeyId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE ussd_accounts SET pin_hash = $2, pin_key_id = $3, updated_at = now() WHERE id = $1',
      [id, pinHash, pinKeyId],
    );
  }

  /** Rows whose PIN is sealed under another key than `keyId`, for the rotation command. */
  async findSealedUnderOtherKeys(
    keyId: string,
    limit: number,
  ): Promise<Array<{ id: string; pinHash: string }>> {
    const rows: Array<{ id: string; pin_hash: string }> = await this.dataSource.query(
      'SELECT id, pin_hash FROM ussd_accounts WHERE pin_key_id <> $1 ORDER BY id LIMIT $2',
      [keyId, limit],
    );
    return rows.map((row) => ({ id: row.id, pinHash: row.pin_hash }));
  }

  /**
   * One stored PIN, any: what start-up opens to check the configured keys (PinKeyCheck). Undefined: no account yet, or
   * no accounts table yet (a database the migrations have not reached: nothing is sealed in it).
   */
  async anySealedPin(): Promise<string | undefined> {
    try {
      const rows: Array<{ pin_hash: string }> = await this.dataSource.query(
        'SELECT pin_hash FROM ussd_accounts LIMIT 1',
      );
      return rows[0]?.pin_hash;
    } catch (error) {
      if (
        error instanceof QueryFailedError &&
        (error.driverError as { code?: string }).code === UNDEFINED_TABLE
      )
        return undefined;
      throw error;
    }
  }
}
