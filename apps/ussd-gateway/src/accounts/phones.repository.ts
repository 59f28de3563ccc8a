import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Data access for the languages phones chose (`ussd_phones.language`), and the accounts they were chosen for. */
@Injectable()
export class PhonesRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

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
}
