import { Injectable } from '@nestjs/common';
import { SqlReader } from '../database/sql-reader';

export interface ApiClientCredentialRow {
  id: string;
  secretHash: string;
}

@Injectable()
export class ApiClientsRepository {
  constructor(private readonly reader: SqlReader) {}

  /**
   * Only clients that are not revoked can authenticate. Read whenever the in-memory cache cannot answer (every
   * request while the change listener is down), hence one plain indexed query rather than the query builder. On the
   * primary: the row is kept until a notification says it changed, and a replica may not have replayed the change
   * that notification announced (a revoked client would be let in until its next change).
   */
  async findActive(id: string): Promise<ApiClientCredentialRow | null> {
    const rows = await this.reader.queryPrimary<ApiClientCredentialRow>(
      'SELECT id, secret_hash AS "secretHash" FROM api_clients WHERE id = $1 AND revoked_at IS NULL',
      [id],
    );
    return rows[0] ?? null;
  }
}
