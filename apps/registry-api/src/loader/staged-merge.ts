import type { ClientBase } from 'pg';
import { ENTITY_FORMATS, EntityFormat, EntityName } from './entity-formats';
import type { EntityCounts } from './import-result';
import { mergeSql } from './load-sql';

/**
 * The first load into an empty table that declares `bulkLoadKeys` is the bulk case (millions of rows). Every
 * reference was already checked against the staged and stored rows, so, as the seeder does, the keys are dropped
 * for the insert and added back after it, which checks every row again in one join. Only on an empty table: there
 * the ACCESS EXCLUSIVE lock this takes (until commit) blocks no reader that had anything to read, and adding the keys
 * back costs no more than the load itself. Inside the load's transaction, so a failure restores them. Returns the
 * statement that adds them back, if they were dropped.
 */
async function liftKeysWhenEmpty(client: ClientBase, format: EntityFormat): Promise<string | undefined> {
  const keys = format.bulkLoadKeys;
  if (!keys) return undefined;
  const { rows } = await client.query<{ empty: boolean }>(
    `SELECT NOT EXISTS (SELECT 1 FROM ${format.table}) AS empty`,
  );
  if (!rows[0]!.empty) return undefined;
  await client.query(
    `ALTER TABLE ${format.table} ${keys.map(([name]) => `DROP CONSTRAINT ${name}`).join(', ')}`,
  );
  return `ALTER TABLE ${format.table} ${keys.map(([name, definition]) => `ADD CONSTRAINT ${name} ${definition}`).join(', ')}`;
}

/**
 * The merge stage of a load, for one entity: its checked staged rows (`rows` of them were read) upserted into the
 * registry table, inside the load's transaction. Returns what changed.
 */
export async function mergeEntity(
  client: ClientBase,
  entity: EntityName,
  rows: number,
): Promise<EntityCounts> {
  const counts: EntityCounts = { entity, rows, inserted: 0, updated: 0, unchanged: 0 };
  const restoreKeys = await liftKeysWhenEmpty(client, ENTITY_FORMATS[entity]);
  for (const statement of mergeSql(entity)) {
    const result = await client.query(statement.sql);
    if (statement.counts) counts[statement.counts] += result.rowCount ?? 0;
  }
  if (restoreKeys) await client.query(restoreKeys);
  counts.unchanged = Math.max(0, counts.rows - counts.inserted - counts.updated);
  return counts;
}
