import { BOM, JsonRecord, MAX_RECORD_CHARS } from './record-readers';

const LINE_TOO_LONG = `a line longer than ${MAX_RECORD_CHARS.toLocaleString('en-US')} characters (the most a data file may hold in one record)`;

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
