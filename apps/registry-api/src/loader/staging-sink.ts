import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { ClientBase } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** A row for a staging table: its values in PostgreSQL text form (`null` for SQL NULL), in the table's column order. */
export type StagedRow = ReadonlyArray<string | number | boolean | null>;

/**
 * Where validated rows go before they are checked against each other and merged: one staging table, filled by
 * `COPY … FROM STDIN` on PostgreSQL, or by batched INSERTs where COPY is not available (the embedded PGlite of
 * `npm start` drops the connection on COPY FROM STDIN). Same rows, same table, either way.
 */
export interface StagingSink {
  /** A promise when the caller must wait (a full buffer on its way), otherwise nothing to wait for. */
  write(row: StagedRow): Promise<void> | undefined;
  end(): Promise<void>;
  /** Drops what is not yet written and leaves the connection free for the next statement. */
  abort(): Promise<void>;
}

export type StagingMode = 'copy' | 'insert';

/** COPY text format: tab-separated, `\N` for NULL, backslash escapes for the characters that would end a field. */
export function copyTextLine(row: StagedRow): string {
  let line = '';
  for (let index = 0; index < row.length; index += 1) {
    if (index > 0) line += '\t';
    const value = row[index];
    if (value === null || value === undefined) line += '\\N';
    else if (typeof value !== 'string') line += String(value);
    else line += /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, escapeCopyCharacter) : value;
  }
  return `${line}\n`;
}

function escapeCopyCharacter(character: string): string {
  switch (character) {
    case '\\':
      return '\\\\';
    case '\t':
      return '\\t';
    case '\n':
      return '\\n';
    default:
      return '\\r';
  }
}

// About 64 KB per write: few enough writes that the stream's overhead vanishes, small enough to keep memory flat.
const COPY_CHUNK = 64 * 1024;

class CopySink implements StagingSink {
  private buffer = '';
  private failure: Error | undefined;
  private readonly done: Promise<void>;
  private readonly stream: Writable;

  constructor(client: ClientBase, table: string, columns: readonly string[]) {
    this.stream = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
    this.done = new Promise<void>((resolve, reject) => {
      this.stream.once('finish', resolve);
      this.stream.once('error', (error: Error) => {
        this.failure = error;
        reject(error);
      });
    });
    // The rejection is delivered by end(); an early failure must not surface as an unhandled rejection meanwhile.
    this.done.catch(() => undefined);
  }

  write(row: StagedRow): Promise<void> | undefined {
    this.buffer += copyTextLine(row);
    return this.buffer.length >= COPY_CHUNK ? this.flush() : undefined;
  }

  async end(): Promise<void> {
    await this.flush();
    this.stream.end();
    await this.done;
  }

  /** pg-copy-streams answers destroy() with CopyFail: the server ends the COPY and the connection takes queries again. */
  async abort(): Promise<void> {
    this.buffer = '';
    if (this.failure || this.stream.closed) return;
    const closed = new Promise((resolve) => this.stream.once('close', resolve));
    this.stream.destroy();
    await closed;
  }

  private async flush(): Promise<void> {
    if (this.failure) throw this.failure;
    if (this.buffer === '') return;
    const accepted = this.stream.write(this.buffer);
    this.buffer = '';
    if (!accepted) await Promise.race([once(this.stream, 'drain'), this.done]);
  }
}

// PostgreSQL takes at most 65,535 parameters per statement; 500 rows keep every staging table well below that.
const INSERT_BATCH = 500;

class InsertSink implements StagingSink {
  private batch: StagedRow[] = [];

  constructor(
    private readonly client: ClientBase,
    private readonly table: string,
    private readonly columns: readonly string[],
  ) {}

  write(row: StagedRow): Promise<void> | undefined {
    this.batch.push(row);
    return this.batch.length >= INSERT_BATCH ? this.flush() : undefined;
  }

  async end(): Promise<void> {
    await this.flush();
  }

  abort(): Promise<void> {
    this.batch = [];
    return Promise.resolve();
  }

  private async flush(): Promise<void> {
    if (this.batch.length === 0) return;
    const width = this.columns.length;
    const values = this.batch.map(
      (_, row) => `(${this.columns.map((__, column) => `$${row * width + column + 1}`).join(', ')})`,
    );
    const params = this.batch
      .flat()
      .map((value) => (typeof value === 'string' || value === null ? value : String(value)));
    this.batch = [];
    await this.client.query(
      `INSERT INTO ${this.table} (${this.columns.join(', ')}) VALUES ${values.join(', ')}`,
      params,
    );
  }
}

export function openStagingSink(
  mode: StagingMode,
  client: ClientBase,
  table: string,
  columns: readonly string[],
): StagingSink {
  return mode === 'copy' ? new CopySink(client, table, columns) : new InsertSink(client, table, columns);
}

/** COPY FROM STDIN unless the server is the embedded PGlite, whose wire server cannot take it. */
export async function detectStagingMode(client: ClientBase): Promise<StagingMode> {
  const { rows } = await client.query<{ version: string }>('SELECT version() AS version');
  return rows[0]!.version.includes('PGlite') ? 'insert' : 'copy';
}
