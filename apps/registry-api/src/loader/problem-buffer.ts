import type { ClientBase } from 'pg';
import { ERRORS_TABLE } from './load-sql';

type BufferedProblem = [line: number, columnNo: number, column: string, value: string, rule: string];

// Problems found while reading are kept in memory up to this many, then written to the errors table between two
// COPY segments: a file where every row is bad costs no more memory than a good one.
const PROBLEM_BUFFER = 5000;
const ROWS_PER_INSERT = 1000;

/** PostgreSQL text holds no NUL: a problem quoting one shows it as ␀. */
const storable = (text: string): string => (text.includes('\0') ? text.replace(/\0/g, '\u2400') : text);

/** The problems one file's rows have while it is read, on their way to the errors table. */
export class ProblemBuffer {
  private problems: BufferedProblem[] = [];

  constructor(
    private readonly fileNo: number,
    /** A column's place in the entity's format: problems are reported in column order. */
    private readonly columnNumbers: ReadonlyMap<string, number>,
  ) {}

  get size(): number {
    return this.problems.length;
  }

  get full(): boolean {
    return this.problems.length >= PROBLEM_BUFFER;
  }

  add(line: number, column: string, value: string, rule: string): void {
    this.problems.push([
      line,
      column === '' ? -1 : (this.columnNumbers.get(column) ?? -1),
      storable(column),
      storable(value),
      rule,
    ]);
  }

  /** Writes the buffered problems; the connection must be free (no COPY open on it). */
  async flush(client: ClientBase): Promise<void> {
    const batch = this.problems;
    this.problems = [];
    for (let start = 0; start < batch.length; start += ROWS_PER_INSERT) {
      const slice = batch.slice(start, start + ROWS_PER_INSERT);
      const values = slice.map(
        (_, index) =>
          `(${this.fileNo}, $${index * 5 + 1}, $${index * 5 + 2}, $${index * 5 + 3}, $${index * 5 + 4}, $${index * 5 + 5})`,
      );
      await client.query(
        `INSERT INTO ${ERRORS_TABLE} (file_no, line, col_no, col, value, rule) VALUES ${values.join(', ')}`,
        slice.flat(),
      );
    }
  }
}
