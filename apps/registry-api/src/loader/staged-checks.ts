import type { ClientBase } from 'pg';
import { EntityName } from './entity-formats';
import type { LoadProblem } from './import-result';
import { LoadFile } from './load-files';
import { checkSql, ERRORS_TABLE } from './load-sql';

export interface ProblemTotals {
  problems: number;
  /** Rows with at least one problem. */
  badRows: number;
}

const PROBLEM_PAGE = 5000;

/**
 * The check stage of a load: the staged rows against each other and the stored registry (keys, references, ledger
 * rules), each breach added to the errors table beside the problems found while reading. Returns the totals.
 */
export async function checkStaged(
  client: ClientBase,
  entities: EntityName[],
  { skipChecks }: { skipChecks: boolean },
): Promise<ProblemTotals> {
  if (!skipChecks)
    for (const entity of entities) for (const statement of checkSql(entity)) await client.query(statement);
  const { rows } = await client.query<{ problems: string; rows: string }>(
    `SELECT count(*) AS problems, count(DISTINCT (file_no, line)) AS rows FROM ${ERRORS_TABLE}`,
  );
  return { problems: Number(rows[0]!.problems), badRows: Number(rows[0]!.rows) };
}

/** The problems in report order: the first `limit` returned, every one handed to `onEvery` (if given). */
export async function fetchProblems(
  client: ClientBase,
  files: LoadFile[],
  limit: number,
  onEvery: ((problem: LoadProblem) => void | Promise<void>) | undefined,
): Promise<LoadProblem[]> {
  const kept: LoadProblem[] = [];
  for (let offset = 0; ; offset += PROBLEM_PAGE) {
    if (!onEvery && offset >= limit) break;
    const { rows } = await client.query<{
      file_no: number;
      line: string;
      col: string;
      value: string;
      rule: string;
    }>(
      `SELECT file_no, line, col, value, rule FROM ${ERRORS_TABLE}
       ORDER BY file_no, line, col_no, col, rule, value LIMIT ${PROBLEM_PAGE} OFFSET ${offset}`,
    );
    for (const row of rows) {
      const problem: LoadProblem = {
        file: files[row.file_no]!.name,
        line: Number(row.line),
        column: row.col,
        value: row.value,
        rule: row.rule,
      };
      if (kept.length < limit) kept.push(problem);
      if (onEvery) await onEvery(problem);
    }
    if (rows.length < PROBLEM_PAGE) break;
  }
  return kept;
}
