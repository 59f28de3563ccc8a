import type { ClientBase } from 'pg';
import { unescapeFormula } from './csv-cells';
import { ColumnSpec, ENTITY_FORMATS, EntityFormat, stagingTable } from './entity-formats';
import { readRecordBatches } from './file-records';
import { LoadFile } from './load-files';
import { stagingColumns } from './load-sql';
import { ProblemBuffer } from './problem-buffer';
import { JsonRecord, SourceRecord } from './record-readers';
import { displayValue, validateRow } from './row-validator';
import { openStagingSink, StagedRow, StagingMode, StagingSink } from './staging-sink';

const PROGRESS_EVERY_ROWS = 8192;

/**
 * The validate-and-stage stage of a load, for one file: its records (read by `readRecordBatches`) are matched to
 * the entity's columns, validated, and staged in the entity's staging table; problems go to the errors table.
 */
export class FileStager {
  rows = 0;
  /** The file is not text (not UTF-8, or a NUL in it): reading stopped at the line named in the report. */
  refused = false;
  private sink: StagingSink;
  private readonly problems: ProblemBuffer;
  private readonly format: EntityFormat;
  private readonly columnNumbers: Map<string, number>;
  private header: Array<number> | undefined;
  private headerFailed = false;
  /** At most one row is staged per record, so at most one write is waiting when take() looks. */
  private pending: Promise<void> | undefined;

  constructor(
    private readonly client: ClientBase,
    private readonly mode: StagingMode,
    private readonly file: LoadFile,
    private readonly fileNo: number,
  ) {
    this.format = ENTITY_FORMATS[file.entity];
    this.columnNumbers = new Map(this.format.columns.map((column, index) => [column.name, index]));
    this.problems = new ProblemBuffer(fileNo, this.columnNumbers);
    this.sink = this.openSink();
  }

  async run(onRows: (rows: number) => void, signal: AbortSignal): Promise<void> {
    let reported = 0;
    try {
      for await (const batch of readRecordBatches(this.file, signal)) {
        await this.take(batch.records);
        if (batch.notText) return await this.refuse(batch.notText.line, batch.notText.rule);
        if (this.rows - reported >= PROGRESS_EVERY_ROWS) {
          reported = this.rows;
          onRows(this.rows);
        }
      }
    } catch (error) {
      await this.sink.abort();
      throw error;
    }
    if (this.file.format === 'csv' && this.header === undefined && !this.headerFailed) {
      this.problem(1, '', '', 'the file is empty: a CSV file starts with a header row naming its columns');
    }
    await this.sink.end();
    await this.flushProblems();
    onRows(this.rows);
  }

  private async refuse(line: number, rule: string): Promise<void> {
    this.refused = true;
    this.problem(line, '', '', rule);
    await this.sink.end();
    await this.flushProblems();
  }

  private async take(records: Array<SourceRecord | JsonRecord>): Promise<void> {
    for (const record of records) {
      if (record.error !== undefined) {
        if (this.headerFailed) continue;
        if (this.file.format === 'csv' && this.header === undefined) this.headerFailed = true;
        else this.rows += 1;
        this.problem(record.line, '', '', record.error);
      } else if ('fields' in record) this.csvRecord(record.line, record.fields!);
      else this.jsonRecord(record.line, record.value!);
      if (this.pending) {
        await this.pending;
        this.pending = undefined;
      }
      if (this.problems.full) await this.flushProblems(true);
    }
  }

  private csvRecord(line: number, fields: string[]): void {
    if (this.headerFailed) return;
    if (this.header === undefined) {
      this.readHeader(line, fields);
      return;
    }
    this.rows += 1;
    if (fields.length !== this.header.length) {
      this.problem(line, '', '', `has ${fields.length} fields, the header has ${this.header.length}`);
      return;
    }
    const positions = this.header;
    this.stage(
      line,
      validateRow(this.format, line, (_column, index) => {
        const position = positions[index]!;
        return position === -1 ? undefined : unescapeFormula(fields[position]!);
      }),
    );
  }

  private jsonRecord(line: number, value: Record<string, unknown>): void {
    this.rows += 1;
    const unknown = Object.keys(value).filter((key) => !this.columnNumbers.has(key));
    if (unknown.length > 0) {
      for (const key of unknown)
        this.problem(line, key, displayValue(value[key]), this.unknownColumnRule('field'));
      return;
    }
    this.stage(
      line,
      validateRow(this.format, line, (column: ColumnSpec) => value[column.name]),
    );
  }

  private unknownColumnRule(what: string): string {
    return `unknown ${what} (${this.file.entity} has ${this.format.columns.map((column) => column.name).join(', ')})`;
  }

  /** Columns may come in any order; optional ones may be left out. */
  private readHeader(line: number, fields: string[]): void {
    const positions = this.format.columns.map((column) => fields.indexOf(column.name));
    const before = this.problems.size;
    fields.forEach((name, index) => {
      if (!this.columnNumbers.has(name)) this.problem(line, name, name, this.unknownColumnRule('column'));
      else if (fields.indexOf(name) !== index) this.problem(line, name, name, 'column named twice');
    });
    this.format.columns.forEach((column, index) => {
      if (column.required && positions[index] === -1)
        this.problem(line, column.name, '', 'required column missing from the header');
    });
    if (this.problems.size > before) this.headerFailed = true;
    else this.header = positions;
  }

  private stage(line: number, check: ReturnType<typeof validateRow>): void {
    if (check.ok) {
      this.write([this.fileNo, line, false, ...check.values]);
      return;
    }
    for (const problem of check.problems)
      this.problem(problem.line, problem.column, problem.value, problem.rule);
    // The key of a bad row is staged (and nothing else), so that rows naming it are not reported as naming nothing.
    if (check.key) {
      const row: Array<string | number | boolean | null> = [
        this.fileNo,
        line,
        true,
        ...this.format.columns.map(() => null),
      ];
      row[3 + this.columnNumbers.get(this.format.key[0]!)!] = check.key[0]!;
      this.write(row);
    }
  }

  private write(row: StagedRow): void {
    const written = this.sink.write(row);
    if (written) this.pending = written;
  }

  private problem(line: number, column: string, value: string, rule: string): void {
    this.problems.add(line, column, value, rule);
  }

  /** Between two COPY segments the connection is free for the INSERT of the buffered problems. */
  private async flushProblems(reopen = false): Promise<void> {
    if (this.problems.size === 0) return;
    if (reopen) await this.sink.end();
    await this.problems.flush(this.client);
    if (reopen) this.sink = this.openSink();
  }

  private openSink(): StagingSink {
    return openStagingSink(
      this.mode,
      this.client,
      stagingTable(this.file.entity),
      stagingColumns(this.format),
    );
  }
}
