import { ColumnSpec, EntityFormat } from './entity-formats';
import { parseField } from './field-types';

/** One reason a row cannot be loaded, as the load report prints it. */
export interface RowProblem {
  line: number;
  column: string;
  value: string;
  rule: string;
}

export type RowCheck =
  | { ok: true; values: Array<string | null> }
  | { ok: false; problems: RowProblem[]; key: Array<string | null> | undefined };

/** What a report shows of a value: CSV text as it stands, an NDJSON value as JSON unless it is a string. */
export function displayValue(raw: unknown): string {
  if (raw === undefined || raw === null) return '';
  return typeof raw === 'string' ? raw : JSON.stringify(raw);
}

/**
 * Reads one row of an entity, column by column, then the rules between its columns. Pure: the same input gives the
 * same values (in the format's column order, PostgreSQL text form) or the same problems. When the row is bad but its
 * key is readable, the key comes back too, so rows of other files that name it are not reported a second time as
 * naming nothing.
 */
export function validateRow(
  format: EntityFormat,
  line: number,
  raw: (column: ColumnSpec, index: number) => unknown,
): RowCheck {
  const values: Array<string | null> = new Array<string | null>(format.columns.length);
  let problems: RowProblem[] | undefined;
  for (let index = 0; index < format.columns.length; index += 1) {
    const column = format.columns[index]!;
    const value = raw(column, index);
    const parsed = parseField(column.type, value, column.required);
    if (parsed.ok) values[index] = parsed.value;
    else {
      values[index] = null;
      (problems ??= []).push({ line, column: column.name, value: displayValue(value), rule: parsed.rule });
    }
  }
  if (!problems && format.rowRules) {
    const row: Record<string, string | null> = {};
    format.columns.forEach((column, index) => (row[column.name] = values[index]!));
    for (const problem of format.rowRules(row)) {
      (problems ??= []).push({
        line,
        column: problem.column,
        value: displayValue(row[problem.column]),
        rule: problem.rule,
      });
    }
  }
  if (!problems) return { ok: true, values };
  const keyIndexes = format.key.map((name) => format.columns.findIndex((column) => column.name === name));
  const key = keyIndexes.map((index) => values[index] ?? null);
  const keyReadable = format.key.length === 1 && key[0] !== null;
  return { ok: false, problems, key: keyReadable ? key : undefined };
}
