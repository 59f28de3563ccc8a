import { FieldType } from './field-types';

/**
 * Each registry table the loader fills, described once: the data file `cli.js import` reads and `cli.js export`
 * writes (the same columns in CSV and NDJSON; docs/data-formats.md is the prose of this table), how a row is
 * checked and how staged rows merge into the table. The importer, the load SQL and the exporter are generic over
 * these descriptions and name no entity. Project ids that follow from a household or a credit block are not
 * columns: the loader takes them from there, so a file cannot contradict itself.
 */
export const ENTITY_NAMES = [
  'projects',
  'households',
  'devices',
  'fuel-readings',
  'fuel-purchases',
  'fuel-deliveries',
  'credit-blocks',
  'credit-events',
] as const;
export type EntityName = (typeof ENTITY_NAMES)[number];

export interface ColumnSpec {
  name: string;
  type: FieldType;
  required: boolean;
  /** Column type of the staging table (the registry table's type). */
  sqlType: string;
  /**
   * A column kept outside the entity's table: the upsert leaves it out, the entity's `merge` statements write it and
   * `exportSql` (over the table as `t`) reads it back as the file's text.
   */
  elsewhere?: { exportSql: string };
}

export interface RuleBreach {
  column: string;
  rule: string;
}

export interface EntityFormat {
  name: EntityName;
  /** The registry table the rows end up in. */
  table: string;
  columns: ColumnSpec[];
  /** The natural key: a row with the key of a stored row updates it. */
  key: string[];
  /** Columns naming a row of another entity, in this load or already in the database. */
  references: Array<{ column: string; entity: EntityName; table: string; what: string }>;
  /** Rules between the columns of one row, checked once every column has parsed. */
  rowRules?: (row: Record<string, string | null>) => RuleBreach[];
  /** Stored columns that follow from another row: `join` (on the staged row `s`) brings it, `source` reads them. */
  derived?: { join: string; columns: Array<{ column: string; source: string }> };
  /** Checks between staged rows and the stored registry, beyond the key and the references. */
  checks?: (sql: LoadSqlContext) => string[];
  /** Statements around the upsert of the staged rows (`stage`); `scratchTables` are the tables they create. */
  merge?: {
    before?: (stage: string) => MergeStatement[];
    after?: (stage: string) => MergeStatement[];
    scratchTables?: string[];
  };
  /**
   * Foreign keys the first load into the empty table drops for its insert and adds back after it (the bulk case,
   * where checking them row by row costs a third of the insert; every reference was checked on the staged rows).
   */
  bulkLoadKeys?: ReadonlyArray<readonly [name: string, definition: string]>;
}

/** What an entity's `checks` build on. */
export interface LoadSqlContext {
  /** The entity's staging table. */
  stage: string;
  /** An INSERT reporting each row of `select` (`file_no, line, value, rule`) as a problem of `column`. */
  problem(column: string, select: string): string;
  /** An entity's rows as they will be once the load is merged: the good staged rows and the stored rows it keeps. */
  finalRows(entity: EntityName, columns: string): string;
}

export interface MergeStatement {
  sql: string;
  /** Rows this statement inserts or updates count as the entity's `inserted` or `updated`. */
  counts?: 'inserted' | 'updated';
}
