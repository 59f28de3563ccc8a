import type { EntityName } from './entity-formats';
import type { StagingMode } from './staging-sink';

/** One thing wrong with one row (or a whole file, on line 1 or the line where it stopped reading). */
export interface LoadProblem {
  file: string;
  line: number;
  column: string;
  value: string;
  rule: string;
}

export interface EntityCounts {
  entity: EntityName;
  rows: number;
  inserted: number;
  updated: number;
  unchanged: number;
}

export type LoadProgress =
  | { stage: 'reading'; file: string; rows: number; elapsedMs: number; done: boolean }
  | { stage: 'checking' | 'refreshing' | 'done'; elapsedMs: number }
  | { stage: 'merging'; entity: EntityName; elapsedMs: number };

export type ImportResult =
  | { ok: true; counts: EntityCounts[]; stagingMode: StagingMode }
  | { ok: false; problemCount: number; badRows: number; problems: LoadProblem[]; stagingMode: StagingMode };
