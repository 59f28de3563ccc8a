import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import type { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * Parameterised reads straight on the pool TypeORM opened. `DataSource.query` wraps every call in a query runner
 * (acquire, hooks, release); on endpoints whose SQL takes a fraction of a millisecond that wrapper was a visible
 * share of each request (docs/performance.md). Same pool, same type parsers, same connection limits.
 */
@Injectable()
export class SqlReader {
  private readonly pool: Pool;

  constructor(@InjectDataSource() dataSource: DataSource) {
    this.pool = (dataSource.driver as PostgresDriver).master as Pool;
  }

  async query<R>(sql: string, params: readonly unknown[] = []): Promise<R[]> {
    const result = await this.pool.query(sql, params as unknown[]);
    return result.rows as R[];
  }
}
