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

export class CustomerIdTakenError extends Error {}

const UNIQUE_VIOLATION = '23505';
const UNDEFINED_TABLE = '42P01';

/**
 * Data access for accounts: creating them, reading them, changing and re-sealing their PINs. Plain SQL, each change
 * one statement, so that concurrent hops (a retry racing its original) are ordered by PostgreSQL and not by luck. PIN
 * attempts and locks are pin-guards.repository.ts's, the phones' languages phones.repository.ts's.
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
