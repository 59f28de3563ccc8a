import { Injectable } from '@nestjs/common';
import { SqlReader } from '../database/sql-reader';
import type { CursorKey } from '../domain/cursor';
import { emissionReductionsSql } from '../domain/emission-reductions';
import {
  latestRecordQuery,
  RecordFilters,
  recordCountQuery,
  recordPageQuery,
  rowKey,
  SqlQuery,
} from './record-query';
import type { RecordResource } from './record-resources';

export interface DensityCounts {
  low: number;
  medium: number;
  high: number;
}

export interface CombinationCount {
  combination: string;
  households: number;
}

export interface AggregateScope {
  projectId?: string;
  region?: string;
}

export interface RawPage<T> {
  items: T[];
  lastKey: CursorKey | null;
  hasMore: boolean;
}

/**
 * Data access of the registry. Aggregates read the rollups (materialized views whose size depends on projects,
 * regions and days, not on the number of households), records read the tables through their (date, id) indexes.
 * Plain SQL rather than the query builder: keyset tuples and rollup sums are clearer, and cheaper, written out.
 */
@Injectable()
export class RegistryRepository {
  constructor(private readonly reader: SqlReader) {}

  private query<R>(query: SqlQuery): Promise<R[]> {
    return this.reader.query<R>(query.sql, query.params);
  }

  async projectExists(projectId: string): Promise<boolean> {
    const rows = await this.reader.query<unknown>('SELECT 1 FROM projects WHERE id = $1', [projectId]);
    return rows.length > 0;
  }

  async regionExists(region: string): Promise<boolean> {
    const rows = await this.reader.query<unknown>(
      'SELECT 1 FROM household_counts WHERE region = $1 LIMIT 1',
      [region],
    );
    return rows.length > 0;
  }

  async householdRegion(householdId: string): Promise<string | null> {
    const rows = await this.reader.query<{ region: string }>('SELECT region FROM households WHERE id = $1', [
      householdId,
    ]);
    return rows[0]?.region ?? null;
  }

  async densityCounts(scope: AggregateScope): Promise<DensityCounts> {
    const rows = await this.reader.query<{ density: keyof DensityCounts; households: string }>(
      `SELECT density, sum(households)::bigint AS households FROM household_counts
       WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
       GROUP BY density`,
      [scope.projectId ?? null, scope.region ?? null],
    );
    const counts: DensityCounts = { low: 0, medium: 0, high: 0 };
    for (const row of rows) counts[row.density] = Number(row.households);
    return counts;
  }

  /** Every combination in the scope, most common first (ties by name), with its household count. */
  async combinations(scope: AggregateScope): Promise<CombinationCount[]> {
    const rows = await this.reader.query<{ combination: string; households: string }>(
      `SELECT combination, sum(households)::bigint AS households FROM household_combinations
       WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
       GROUP BY combination ORDER BY households DESC, combination ASC`,
      [scope.projectId ?? null, scope.region ?? null],
    );
    return rows.map((row) => ({ combination: row.combination, households: Number(row.households) }));
  }

  /** Kilograms over a date range, from the daily rollup; rounded to grams so sums print as they were recorded. */
  async fuelConsumedInScope(scope: AggregateScope, from: string | null, to: string | null): Promise<number> {
    const rows = await this.reader.query<{ total: number }>(
      `SELECT round(coalesce(sum(fuel_kg), 0), 3)::float8 AS total FROM fuel_daily
       WHERE ($1::text IS NULL OR project_id = $1) AND ($2::text IS NULL OR region = $2)
         AND ($3::date IS NULL OR day >= $3::date) AND ($4::date IS NULL OR day <= $4::date)`,
      [scope.projectId ?? null, scope.region ?? null, from, to],
    );
    return rows[0]!.total;
  }

  /** One household's records are few (one reading a month), so its sum reads them through its own index. */
  async fuelConsumedByHousehold(
    householdId: string,
    from: string | null,
    to: string | null,
  ): Promise<number> {
    const rows = await this.reader.query<{ total: number }>(
      `SELECT round(coalesce(sum(quantity_kg), 0), 3)::float8 AS total FROM fuel_consumption
       WHERE household_id = $1 AND ($2::date IS NULL OR consumed_on >= $2::date) AND ($3::date IS NULL OR consumed_on <= $3::date)`,
      [householdId, from, to],
    );
    return rows[0]!.total;
  }

  async creditsIssued(projectId: string, from: string, to: string): Promise<number> {
    const rows = await this.reader.query<{ credits: string }>(
      `SELECT coalesce(sum(credits), 0)::bigint AS credits FROM credits_issued_daily
       WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date`,
      [projectId, from, to],
    );
    return Number(rows[0]!.credits);
  }

  /** Whole tCO2e of a project over a date range, by the methodology formula over the daily fuel rollup. */
  async emissionReductions(projectId: string, from: string, to: string): Promise<number | null> {
    const rows = await this.reader.query<{ reductions: number }>(
      `SELECT floor(${emissionReductionsSql('f.fuel_kg', 'p')})::integer AS reductions
       FROM projects p,
            (SELECT coalesce(sum(fuel_kg), 0) AS fuel_kg FROM fuel_daily WHERE project_id = $1 AND day BETWEEN $2::date AND $3::date) f
       WHERE p.id = $1`,
      [projectId, from, to],
    );
    return rows[0]?.reductions ?? null;
  }

  async latestRecord<T>(resource: RecordResource<T>, filters: RecordFilters): Promise<T | null> {
    const rows = await this.query<Record<string, unknown>>(latestRecordQuery(resource, filters));
    return rows[0] ? resource.map(rows[0]) : null;
  }

  async recordPage<T>(
    resource: RecordResource<T>,
    filters: RecordFilters,
    after: CursorKey | null,
    limit: number,
  ): Promise<RawPage<T>> {
    const rows = await this.query<Record<string, unknown>>(recordPageQuery(resource, filters, after, limit));
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    return { items: page.map((row) => resource.map(row)), lastKey: last ? rowKey(last) : null, hasMore };
  }

  async recordCount(resource: RecordResource<unknown>, filters: RecordFilters): Promise<number> {
    const rows = await this.query<{ total: string }>(recordCountQuery(resource, filters));
    return Number(rows[0]!.total);
  }
}
