import fc from 'fast-check';
import { CsvRecordReader } from './csv-record-reader';
import { NdjsonRecordReader } from './ndjson-record-reader';
import { JsonRecord, MAX_FIELD_CHARS, MAX_RECORD_CHARS, SourceRecord } from './record-readers';

function readCsv(chunks: string[]): SourceRecord[] {
  const records: SourceRecord[] = [];
  const reader = new CsvRecordReader((record) => records.push(record));
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return records;
}

function readNdjson(chunks: string[]): JsonRecord[] {
  const records: JsonRecord[] = [];
  const reader = new NdjsonRecordReader((record) => records.push(record));
  for (const chunk of chunks) reader.push(chunk);
  reader.end();
  return records;
}

/** Splits text at the given cut points (any position: inside a field, a quote pair, a CRLF). */
function cut(text: string, points: number[]): string[] {
  const sorted = [...new Set(points.map((point) => point % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let start = 0;
  for (const point of sorted) {
    chunks.push(text.slice(start, point));
    start = point;
  }
  chunks.push(text.slice(start));
  return chunks;
}

const encodeField = (field: string, forceQuotes: boolean): string =>
  forceQuotes || /[",\r\n]/.test(field) || field === '' ? `"${field.replace(/"/g, '""')}"` : field;

describe('CsvRecordReader', () => {
  it.each<[string, string, SourceRecord[]]>([
    [
      'plain LF',
      'a,b\n1,2\n',
      [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    ],
    [
      'CRLF and no final break',
      'a,b\r\n1,2',
      [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    ],
    [
      'a byte order mark before the header',
      '\uFEFFa,b\n1,2\n',
      [
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['1', '2'] },
      ],
    ],
    ['quoted comma, doubled quote', '"x,y","say ""hi"""\n', [{ line: 1, fields: ['x,y', 'say "hi"'] }]],
    [
      'a quoted line break: the next record starts two lines on',
      '"1\n2",b\nc,d\n',
      [
        { line: 1, fields: ['1\n2', 'b'] },
        { line: 3, fields: ['c', 'd'] },
      ],
    ],
    ['empty fields', ',,\n', [{ line: 1, fields: ['', '', ''] }]],
    [
      'blank lines are skipped and still counted',
      'a\n\n\r\nb\n',
      [
        { line: 1, fields: ['a'] },
        { line: 4, fields: ['b'] },
      ],
    ],
    ['an empty quoted field is a record, not a blank line', '""\n', [{ line: 1, fields: [''] }]],
    [
      'a lone CR ends a record',
      'a\rb\r',
      [
        { line: 1, fields: ['a'] },
        { line: 2, fields: ['b'] },
      ],
    ],
    [
      'a quote inside an unquoted field',
      'ab"c,d\ne,f\n',
      [
        {
          line: 1,
          error: 'a quote inside an unquoted field (enclose the field in quotes and double the quote)',
        },
        { line: 2, fields: ['e', 'f'] },
      ],
    ],
    [
      'text after a closing quote',
      '"ab"c,d\ne\n',
      [
        { line: 1, error: 'text after a closing quote (a quote inside a quoted field must be doubled)' },
        { line: 2, fields: ['e'] },
      ],
    ],
    [
      'an unclosed quote',
      'a\n"b,c\nd\n',
      [
        { line: 1, fields: ['a'] },
        { line: 2, error: 'a quoted field is never closed (an odd number of quotes)' },
      ],
    ],
  ])('%s', (_name, text, expected) => {
    expect(readCsv([text])).toEqual(expected);
    // The same records whatever the chunking, down to one character at a time.
    expect(readCsv([...text])).toEqual(expected);
  });

  const field = fc.string({
    unit: fc.constantFrom('a', 'Z', '0', ' ', ',', '"', '\n', '\r', 'é', '😀', '\t'),
    maxLength: 8,
  });
  const rows = fc.array(fc.array(field, { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 8 });

  it('reads back any rows written by RFC 4180, with LF or CRLF, with or without a BOM, in any chunks', () => {
    fc.assert(
      fc.property(
        rows,
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 12 }),
        (data, crlf, bom, quoteAll, finalBreak, cuts) => {
          const lines = data.map((row) =>
            row
              .map((value, index) => encodeField(value, quoteAll || (row.length === 1 && index === 0)))
              .join(','),
          );
          const text =
            (bom ? '\uFEFF' : '') +
            lines.join(crlf ? '\r\n' : '\n') +
            (finalBreak ? (crlf ? '\r\n' : '\n') : '');
          const records = readCsv(cut(text, cuts));
          expect(records.map((record) => record.fields)).toEqual(data);
          expect(records.every((record) => record.error === undefined)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('never throws on arbitrary text, and every record it gives is either fields or an error', () => {
    const noise = fc.string({
      unit: fc.constantFrom('a', ',', '"', '\n', '\r', '\uFEFF', ' ', 'x'),
      maxLength: 60,
    });
    fc.assert(
      fc.property(noise, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
        const whole = readCsv([text]);
        expect(readCsv(cut(text, cuts))).toEqual(whole);
        for (const record of whole) {
          expect(Number.isInteger(record.line) && record.line >= 1).toBe(true);
          expect(
            record.error === undefined ? Array.isArray(record.fields) : typeof record.error === 'string',
          ).toBe(true);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('NdjsonRecordReader', () => {
  it('reads objects per line, counts blank lines, accepts CRLF and a BOM, and reports bad lines', () => {
    const text = '\uFEFF{"a":1}\r\n\n[1]\nnot json\n{"b":"x\\ny"}';
    const expected: JsonRecord[] = [
      { line: 1, value: { a: 1 } },
      { line: 3, error: 'must be a JSON object' },
      { line: 4, error: 'not valid JSON' },
      { line: 5, value: { b: 'x\ny' } },
    ];
    expect(readNdjson([text])).toEqual(expected);
    expect(readNdjson([...text])).toEqual(expected);
  });

  it('never throws on arbitrary text', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), fc.array(fc.nat(), { maxLength: 6 }), (text, cuts) => {
        expect(readNdjson(cut(text, cuts))).toEqual(readNdjson([text]));
      }),
    );
  });
});

describe('size limits', () => {
  const FIELD = 'a field longer than 10,000 characters (the most a data file may hold in one field)';
  const RECORD = 'a record longer than 100,000 characters (the most a data file may hold in one record)';
  const LINE = 'a line longer than 100,000 characters (the most a data file may hold in one record)';
  const chunked = (text: string, size: number): string[] =>
    Array.from({ length: Math.ceil(text.length / size) }, (_, index) =>
      text.slice(index * size, (index + 1) * size),
    );

  it.each([1000, 4093, 1 << 20])(
    'refuses CSV fields and records over the limits and reads on (chunks of %i)',
    (size) => {
      const text = [
        'a,b',
        `${'x'.repeat(MAX_FIELD_CHARS)},ok`,
        `"${'x'.repeat(MAX_FIELD_CHARS)}\n${'y'.repeat(10)}",z`,
        `${'x'.repeat(MAX_FIELD_CHARS + 1)},z`,
        Array.from({ length: 11 }, () => 'r'.repeat(MAX_RECORD_CHARS / 10)).join(','),
        '1,2',
        `"never closed${'\r\nq'.repeat(20_000)}`,
      ].join('\r\n');
      expect(readCsv(chunked(text, size))).toEqual([
        { line: 1, fields: ['a', 'b'] },
        { line: 2, fields: ['x'.repeat(MAX_FIELD_CHARS), 'ok'] },
        { line: 3, error: FIELD },
        { line: 5, error: FIELD },
        { line: 6, error: RECORD },
        { line: 7, fields: ['1', '2'] },
        { line: 8, error: FIELD },
      ]);
    },
  );

  it.each([1000, 4093, 1 << 20])(
    'refuses an NDJSON line over the limit and reads on (chunks of %i)',
    (size) => {
      const long = `{"a":"${'x'.repeat(MAX_RECORD_CHARS)}"}`;
      const text = ['{"a":1}', long, '{"a":2}', long].join('\n');
      expect(readNdjson(chunked(text, size))).toEqual([
        { line: 1, value: { a: 1 } },
        { line: 2, error: LINE },
        { line: 3, value: { a: 2 } },
        { line: 4, error: LINE },
      ]);
    },
  );
});
