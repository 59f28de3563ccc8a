import { BOM, MAX_FIELD_CHARS, MAX_RECORD_CHARS, SourceRecord } from './record-readers';

const QUOTE = 0x22;
const COMMA = 0x2c;
const LF = 0x0a;
const CR = 0x0d;

const FIELD_TOO_LONG = `a field longer than ${MAX_FIELD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one field)`;
const RECORD_TOO_LONG = `a record longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one record)`;

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
  /** The record has a quoted field: a record of one empty quoted field is not a blank line. */
  private quotedField = false;
  /** Where the text of the current field begins in the chunk being read. */
  private start = 0;
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
    this.start = i;
    while (i < n) {
      if (this.skipLf) {
        this.skipLf = false;
        if (chunk.charCodeAt(i) === LF) {
          this.start = ++i;
          continue;
        }
      }
      switch (this.state) {
        case State.FieldStart:
          i = this.fieldStart(chunk, i);
          break;
        case State.Unquoted:
          i = this.unquoted(chunk, i);
          break;
        case State.Quoted:
          i = this.quoted(chunk, i);
          break;
        case State.AfterQuote:
          i = this.afterQuote(chunk, i);
          break;
      }
    }
    if ((this.state === State.Unquoted || this.state === State.Quoted) && this.start < n)
      this.append(chunk.slice(this.start, n));
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

  // The state handlers below take the chunk and the index of its next character; each returns the index after what
  // it consumed, and moves `start` (where the text of the current field begins in the chunk) as it goes.

  private fieldStart(chunk: string, i: number): number {
    const c = chunk.charCodeAt(i);
    if (c === QUOTE) {
      this.state = State.Quoted;
      this.quotedField = true;
      this.start = i + 1;
    } else if (c === COMMA) {
      this.pushField();
      this.start = i + 1;
    } else if (c === LF || c === CR) {
      this.pushField();
      this.endRecord(c === CR);
      this.start = i + 1;
    } else {
      this.state = State.Unquoted;
      this.start = i;
    }
    return i + 1;
  }

  private unquoted(chunk: string, from: number): number {
    const n = chunk.length;
    let i = from;
    let c = 0;
    while (i < n) {
      c = chunk.charCodeAt(i);
      if (c === COMMA || c === LF || c === CR || c === QUOTE) break;
      i += 1;
    }
    if (i === n) return i;
    if (c === QUOTE) {
      this.error ??= 'a quote inside an unquoted field (enclose the field in quotes and double the quote)';
      return i + 1;
    }
    this.append(chunk.slice(this.start, i));
    this.pushField();
    if (c === COMMA) this.state = State.FieldStart;
    else this.endRecord(c === CR);
    this.start = i + 1;
    return i + 1;
  }

  private quoted(chunk: string, from: number): number {
    const n = chunk.length;
    let i = from;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      if (c === QUOTE) break;
      if (c === LF) this.line += 1;
      i += 1;
    }
    if (i === n) return i;
    this.append(chunk.slice(this.start, i));
    this.state = State.AfterQuote;
    this.start = i + 1;
    return i + 1;
  }

  private afterQuote(chunk: string, i: number): number {
    const c = chunk.charCodeAt(i);
    if (c === QUOTE) {
      this.append('"');
      this.state = State.Quoted;
    } else if (c === COMMA || c === LF || c === CR) {
      this.pushField();
      if (c === COMMA) this.state = State.FieldStart;
      else this.endRecord(c === CR);
    } else {
      this.error ??= 'text after a closing quote (a quote inside a quoted field must be doubled)';
      this.state = State.Unquoted;
      this.start = i;
      return i;
    }
    this.start = i + 1;
    return i + 1;
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
      this.fields.length === 1 && this.fields[0] === '' && !this.quotedField && this.error === undefined;
    if (!blank) {
      this.emit(
        this.error === undefined
          ? { line: this.recordLine, fields: this.fields }
          : { line: this.recordLine, error: this.error },
      );
    }
    this.fields = [];
    this.error = undefined;
    this.quotedField = false;
    this.recordChars = 0;
    this.oversized = false;
    this.state = State.FieldStart;
    this.line += 1;
    this.recordLine = this.line;
    this.skipLf = cr;
  }
}
