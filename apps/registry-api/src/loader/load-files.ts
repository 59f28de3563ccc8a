import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { ENTITY_NAMES, EntityName, loadOrder } from './entity-formats';

export type FileFormat = 'csv' | 'ndjson';

export interface LoadFile {
  path: string;
  /** What the report calls the file: its name, or the path as given when two files share a name. */
  name: string;
  entity: EntityName;
  format: FileFormat;
}

export class LoadFileError extends Error {}

const EXTENSIONS: Record<string, FileFormat> = { csv: 'csv', ndjson: 'ndjson', jsonl: 'ndjson' };

/**
 * A data file is named after its entity: the part of the name before the first dot is the entity, the last
 * extension the format (`fuel-readings.csv`, `fuel-readings.2024-q3.ndjson`, `credit-events.jsonl`). Returns
 * undefined for a name that is not a data file at all (no .csv/.ndjson/.jsonl extension).
 */
export function classifyFileName(name: string): { entity: string; format: FileFormat } | undefined {
  const parts = name.split('.');
  const format = parts.length > 1 ? EXTENSIONS[parts[parts.length - 1]!.toLowerCase()] : undefined;
  return format ? { entity: parts[0]!, format } : undefined;
}

/**
 * The files a load reads, in load order (every entity after those it references; files of one entity by name).
 * Directories are read one level deep and contribute their data files; anything named as a file must be one.
 */
export function resolveLoadFiles(paths: string[]): LoadFile[] {
  const found: Array<Omit<LoadFile, 'name'>> = [];
  const add = (path: string, explicit: boolean): void => {
    const kind = classifyFileName(basename(path));
    if (!kind) {
      if (explicit)
        throw new LoadFileError(`${path}: not a data file (expected a .csv, .ndjson or .jsonl name)`);
      return;
    }
    if (!(ENTITY_NAMES as readonly string[]).includes(kind.entity)) {
      throw new LoadFileError(
        `${path}: "${kind.entity}" names no entity (expected one of ${ENTITY_NAMES.join(', ')})`,
      );
    }
    found.push({ path, entity: kind.entity as EntityName, format: kind.format });
  };
  for (const path of paths) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(path).isDirectory();
    } catch {
      throw new LoadFileError(`${path}: no such file or directory`);
    }
    if (!isDirectory) add(path, true);
    else
      for (const entry of readdirSync(path).sort())
        if (statSync(join(path, entry)).isFile()) add(join(path, entry), false);
  }
  const unique = found.filter(
    (file, index) => found.findIndex((other) => other.path === file.path) === index,
  );
  if (unique.length === 0) throw new LoadFileError(`no data files in ${paths.join(', ')}`);
  const order = loadOrder();
  unique.sort(
    (a, b) =>
      order.indexOf(a.entity) - order.indexOf(b.entity) ||
      basename(a.path).localeCompare(basename(b.path)) ||
      a.path.localeCompare(b.path),
  );
  return unique.map((file) => {
    const sameName = unique.filter((other) => basename(other.path) === basename(file.path)).length > 1;
    return { ...file, name: sameName ? file.path : basename(file.path) };
  });
}
