/**
 * Streaming readers for the two file formats (`csv-record-reader.ts`, `ndjson-record-reader.ts`) share what is
 * here. Text arrives in chunks of any size (a chunk may end inside a field, a quoted newline or a CRLF pair); each
 * complete record is handed on with the physical line it starts on, or with the reason it cannot be read. They never
 * throw on their input: a malformed record is a row error in the load report, and the next record is read as usual.
 */
export type SourceRecord =
  | { line: number; fields: string[]; error?: undefined }
  | { line: number; error: string; fields?: undefined };

export type JsonRecord =
  | { line: number; value: Record<string, unknown>; error?: undefined }
  | { line: number; error: string; value?: undefined };

/** A UTF-8 byte order mark, as a character: skipped at the start of a file. */
export const BOM = 0xfeff;

/**
 * The longest field and record (an NDJSON line) a data file may hold, in characters. The longest valid field is a
 * 200-character text and a row a few hundred characters, so these never refuse a good file; they keep a field
 * without end (a quote never closed, a 600 MB value) from filling memory: past them the reader only looks for the
 * record's end, and the record is an error.
 */
export const MAX_FIELD_CHARS = 10_000;
export const MAX_RECORD_CHARS = 100_000;
