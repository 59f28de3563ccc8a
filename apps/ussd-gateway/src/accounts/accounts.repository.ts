import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, QueryFailedError } from 'typeorm';
import { AccountEntity } from './account.entity';
import { PhoneEntity } from './phone.entity';

export interface AccountRow {
  id: string;
  customerId: string;
  fullName: string;
  email: string | null;
  phoneNumber: string;
  pinHash: string;
  pinKeyId: string;
  /** Seconds until the lock ends, by the database clock; 0 when not locked. */
  lockSecondsLeft: number;
}

export interface NewAccount {
  customerId: string;
  fullName: string;
  email: string | null;
  phoneNumber: string;
  pinHash: string;
  pinKeyId: string;
}

export class CustomerIdTakenError extends Error {}

const UNIQUE_VIOLATION = '23505';

/** Data access for accounts and phones. Attempt counters change in single statements, so parallel tries count. */
@Injectable()
export class AccountsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async create(account: NewAccount): Promise<void> {
    try {
      await this.dataSource.transaction(async (manager) => {
        await manager
          .createQueryBuilder()
          .insert()
          .into(PhoneEntity)
          .values({ phoneNumber: account.phoneNumber })
          .orUpdate(['last_seen_at'], ['phone_number'])
          .execute();
        const phone = await manager.findOneByOrFail(PhoneEntity, { phoneNumber: account.phoneNumber });
        await manager.insert(AccountEntity, {
          customerId: account.customerId,
          fullName: account.fullName,
          email: account.email,
          phone,
          pinHash: account.pinHash,
          pinKeyId: account.pinKeyId,
        });
      });
    } catch (error) {
      const driverError = error instanceof QueryFailedError ? (error.driverError as { code?: string; constraint?: string }) : undefined;
      if (driverError?.code === UNIQUE_VIOLATION && driverError.constraint === 'uq_ussd_accounts_customer_id') {
        throw new CustomerIdTakenError(account.customerId);
      }
      throw error;
    }
  }

  async findByCustomerId(customerId: string): Promise<AccountRow | null> {
    const rows: Array<Record<string, unknown>> = await this.dataSource.query(
      `SELECT a.id, a.customer_id, a.full_name, a.email, p.phone_number, a.pin_hash, a.pin_key_id,
              GREATEST(0, CEIL(EXTRACT(EPOCH FROM (a.locked_until - now()))))::int AS lock_seconds_left
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
      lockSecondsLeft: Number(row.lock_seconds_left ?? 0),
    };
  }

  /**
   * Counts one wrong PIN; the attempt that reaches `maxAttempts` locks the account and starts a fresh count for
   * after the lock. Returns the attempts used so far and the lock length (0 when this attempt did not lock).
   */
  async recordFailure(id: string, maxAttempts: number, lockSeconds: number): Promise<{ attempts: number; lockSeconds: number }> {
    // For UPDATE … RETURNING, TypeORM's postgres driver answers [rows, affected count].
    const [rows]: [Array<{ attempts: number; locked: boolean }>, number] = await this.dataSource.query(
      `UPDATE ussd_accounts
          SET failed_pin_attempts = CASE WHEN failed_pin_attempts + 1 >= $2 THEN 0 ELSE failed_pin_attempts + 1 END,
              locked_until = CASE WHEN failed_pin_attempts + 1 >= $2 THEN now() + make_interval(secs => $3) ELSE locked_until END,
              updated_at = now()
        WHERE id = $1
        RETURNING failed_pin_attempts AS attempts, (failed_pin_attempts = 0) AS locked`,
      [id, maxAttempts, lockSeconds],
    );
    const row = rows[0];
    if (!row) throw new Error('account vanished while counting a failed PIN');
    return row.locked ? { attempts: maxAttempts, lockSeconds } : { attempts: Number(row.attempts), lockSeconds: 0 };
  }

  async recordSuccess(id: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE ussd_accounts SET failed_pin_attempts = 0, locked_until = NULL, updated_at = now()
        WHERE id = $1 AND (failed_pin_attempts <> 0 OR locked_until IS NOT NULL)`,
      [id],
    );
  }

  async replacePin(id: string, pinHash: string, pinKeyId: string): Promise<void> {
    await this.dataSource.query(
      'UPDATE ussd_accounts SET pin_hash = $2, pin_key_id = $3, failed_pin_attempts = 0, updated_at = now() WHERE id = $1',
      [id, pinHash, pinKeyId],
    );
  }

  /** Rows whose PIN is sealed under another key than `keyId`, for the rotation command. */
  async findSealedUnderOtherKeys(keyId: string, limit: number): Promise<Array<{ id: string; pinHash: string }>> {
    const rows: Array<{ id: string; pin_hash: string }> = await this.dataSource.query(
      'SELECT id, pin_hash FROM ussd_accounts WHERE pin_key_id <> $1 ORDER BY id LIMIT $2',
      [keyId, limit],
    );
    return rows.map((row) => ({ id: row.id, pinHash: row.pin_hash }));
  }
}
