/**
 * Streaming readers for the two file formats. Text arrives in chunks of any size (a chunk may end inside a field, a
 * quoted newline or a CRLF pair); each complete record is handed on with the physical line it starts on, or with
 * the reason it cannot be read. They never throw on their input: a malformed record is a row error in the load
 * report, and the next record is read as usual.
 */
export type SourceRecord =
  | { line: number; fields: string[]; error?: undefined }
  | { line: number; error: string; fields?: undefined };

export type JsonRecord =
  | { line: number; value: Record<string, unknown>; error?: undefined }
  | { line: number; error: string; value?: undefined };

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;
const BOM = 0xfeff;

/**
 * The longest field and record (an NDJSON line) a data file may hold, in characters. The longest valid field is a
 * 200-character text and a row a few hundred characters, so these never refuse a good file; they keep a field
 * without end (a quote never closed, a 600 MB value) from filling memory: past them the reader only looks for the
 * record's end, and the record is an error.
 */
export const MAX_FIELD_CHARS = 10_000;
export const MAX_RECORD_CHARS = 100_000;
const FIELD_TOO_LONG = `a field longer than ${MAX_FIELD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one field)`;
const RECORD_TOO_LONG = `a record longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one record)`;
const LINE_TOO_LONG = `a line longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one record)`;

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  AfterQuote,
}

/**
 * RFC 4180: comma-separated fields, records ending in CRLF or LF (a lone CR counts too), fields containing commas,
 * quotes or line breaks enclosed in double quotes, a quote inside them doubled. A UTF-8 byte order mark before the
 * header is skipped. Blank lines are skipped. Two deviations are refused rather than guessed at: a quote inside an
 * unquoted field, and text after a closing quote.
 */
export class CsvRecordReader {
  private fields: string[] = [];
  private field = '';
  private state = State.FieldStart;
  private line = 1;
  private recordLine = 1;
  private error: string | undefined;
  private quoted = false;
  private skipLf = false;
  private atStart = true;
  private recordChars = 0;
  private oversized = false;

  constructor(private readonly emit: (record: SourceRecord) => void) {}

  push(chunk: string): void {
    const n = chunk.length;
    let i = 0;
    if (this.atStart && n > 0) {
      this.atStart = false;
      if (chunk.charCodeAt(0) === BOM) i = 1;
    }
    let start = i;
    while (i < n) {
      let c = chunk.charCodeAt(i);
      if (this.skipLf) {
        this.skipLf = false;
        if (c === LF) {
          start = ++i;
          continue;
        }
      }
      switch (this.state) {
        case State.FieldStart:
          if (c === QUOTE) {
            this.state = State.Quoted;
            this.quoted = true;
            start = ++i;
          } else if (c === COMMA) {
            this.pushField();
            start = ++i;
          } else if (c === LF || c === CR) {
            this.pushField();
            this.endRecord(c === CR);
            start = ++i;
          } else {
            this.state = State.Unquoted;
            start = i++;
          }
          break;
        case State.Unquoted:
          while (i < n) {
            c = chunk.charCodeAt(i);
            if (c === COMMA || c === LF || c === CR || c === QUOTE) break;
            i += 1;
          }
          if (i === n) break;
          if (c === QUOTE) {
            this.error ??=
              'a quote inside an unquoted field (enclose the field in quotes and double the quote)';
            i += 1;
            break;
          }
          this.append(chunk.slice(start, i));
          this.pushField();
          if (c === COMMA) this.state = State.FieldStart;
          else this.endRecord(c === CR);
          start = ++i;
          break;
        case State.Quoted:
          while (i < n) {
            c = chunk.charCodeAt(i);
            if (c === QUOTE) break;
            if (c === LF) this.line += 1;
            i += 1;
          }
          if (i === n) break;
          this.append(chunk.slice(start, i));
          this.state = State.AfterQuote;
          start = ++i;
          break;
        case State.AfterQuote:
          if (c === QUOTE) {
            this.append('"');
            this.state = State.Quoted;
            start = ++i;
          } else if (c === COMMA || c === LF || c === CR) {
            this.pushField();
            if (c === COMMA) this.state = State.FieldStart;
            else this.endRecord(c === CR);
            start = ++i;
          } else {
            this.error ??= 'text after a closing quote (a quote inside a quoted field must be doubled)';
            this.state = State.Unquoted;
            start = i;
          }
          break;
      }
    }
    if ((this.state === State.Unquoted || this.state === State.Quoted) && start < n)
      this.append(chunk.slice(start, n));
  }

  /** The input is complete: a last record without a line break is still a record; an open quote is an error. */
  end(): void {
    if (this.state === State.Quoted) {
      if (!this.oversized) this.error = 'a quoted field is never closed (an odd number of quotes)';
      this.pushField();
      this.endRecord(false);
      return;
    }
    if (this.state === State.FieldStart && this.fields.length === 0 && !this.oversized) return;
    this.pushField();
    this.endRecord(false);
  }

  private append(text: string): void {
    if (this.oversized) return;
    if (this.field.length + text.length > MAX_FIELD_CHARS) this.oversize(FIELD_TOO_LONG);
    else this.field += text;
  }

  private pushField(): void {
    if (!this.oversized) {
      this.recordChars += this.field.length;
      if (this.recordChars > MAX_RECORD_CHARS) this.oversize(RECORD_TOO_LONG);
      else this.fields.push(this.field);
    }
    this.field = '';
  }

  /** From here to the record's end nothing is kept: the record is reported, not read. */
  private oversize(rule: string): void {
    this.oversized = true;
    this.error ??= rule;
    this.fields = [];
    this.field = '';
  }

  private endRecord(cr: boolean): void {
    const blank =
      this.fields.length === 1 && this.fields[0] === '' && !this.quoted && this.error === undefined;
    if (!blank) {
      this.emit(
        this.error === undefined
          ? { line: this.recordLine, fields: this.fields }
          : { line: this.recordLine, error: this.error },
      );
    }
    this.fields = [];
    this.error = undefined;
    this.quoted = false;
    this.recordChars = 0;
    this.oversized = false;
    this.state = State.FieldStart;
    this.line += 1;
    this.recordLine = this.line;
    this.skipLf = cr;
  }
}

/** One JSON object per line (NDJSON / JSON Lines); CRLF and a leading byte order mark are accepted, blank lines skipped. */
export class NdjsonRecordReader {
  private pending = '';
  private line = 0;
  private atStart = true;
  /** Inside a line already reported as too long: everything up to its line feed is dropped. */
  private skipping = false;

  constructor(private readonly emit: (record: JsonRecord) => void) {}

  push(chunk: string): void {
    let text = this.pending + chunk;
    if (this.atStart && text.length > 0) {
      this.atStart = false;
      if (text.charCodeAt(0) === BOM) text = text.slice(1);
    }
    let start = 0;
    if (this.skipping) {
      const end = text.indexOf('\n');
      if (end === -1) {
        this.pending = '';
        return;
      }
      this.skipping = false;
      start = end + 1;
    }
    for (let end = text.indexOf('\n', start); end !== -1; end = text.indexOf('\n', start)) {
      this.record(text.slice(start, end));
      start = end + 1;
    }
    this.pending = text.slice(start);
    if (this.pending.length > MAX_RECORD_CHARS) {
      this.line += 1;
      this.emit({ line: this.line, error: LINE_TOO_LONG });
      this.pending = '';
      this.skipping = true;
    }
  }

  end(): void {
    if (this.pending !== '' && !this.skipping) this.record(this.pending);
    this.pending = '';
  }

  private record(raw: string): void {
    this.line += 1;
    if (raw.length > MAX_RECORD_CHARS) {
      this.emit({ line: this.line, error: LINE_TOO_LONG });
      return;
    }
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.emit({ line: this.line, error: 'not valid JSON' });
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.emit({ line: this.line, error: 'must be a JSON object' });
      return;
    }
    this.emit({ line: this.line, value: value as Record<string, unknown> });
  }
}
