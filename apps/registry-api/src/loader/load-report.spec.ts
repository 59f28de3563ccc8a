import { failureSummary, formatProblem, progressPrinter, reportRow } from './load-report';

function fakeStream(isTTY: boolean): { stream: NodeJS.WriteStream; written: string[] } {
  const written: string[] = [];
  const stream = { isTTY, write: (text: string) => written.push(text) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, written };
}

describe('load report', () => {
  it.each([
    [
      {
        file: 'households.csv',
        line: 4,
        column: 'density',
        value: 'huge',
        rule: 'must be one of low, medium, high',
      },
      'households.csv:4: density "huge": must be one of low, medium, high',
    ],
    [
      { file: 'devices.csv', line: 3, column: 'status', value: '', rule: 'is required' },
      'devices.csv:3: status: is required',
    ],
    [
      { file: 'a.csv', line: 9, column: '', value: '', rule: 'has 2 fields, the header has 5' },
      'a.csv:9: has 2 fields, the header has 5',
    ],
    [
      { file: 'a.csv', line: 2, column: 'name', value: 'x'.repeat(100), rule: 'r' },
      `a.csv:2: name "${'x'.repeat(80)}…": r`,
    ],
  ])('prints %j as one line', (problem, line) => {
    expect(formatProblem(problem)).toBe(line);
  });

  it('writes report rows as RFC 4180 CSV with the whole value', () => {
    expect(reportRow({ file: 'p.csv', line: 2, column: 'name', value: 'say "hi", twice\n', rule: 'r' })).toBe(
      'p.csv,2,name,"say ""hi"", twice\n",r\r\n',
    );
  });

  it.each([
    [3, 2, 3, undefined, 'import failed: 3 problems in 2 rows; nothing was written'],
    [1, 1, 1, 'e.csv', 'import failed: 1 problem in 1 row (also in e.csv); nothing was written'],
    [
      12_000,
      9_000,
      50,
      undefined,
      'import failed: 12,000 problems in 9,000 rows (the first 50 above; --report FILE writes them all); nothing was written',
    ],
  ])('sums up %d problems in %d rows, %d shown, report %s', (problems, rows, shown, report, text) => {
    expect(failureSummary(problems, rows, shown, report)).toBe(text);
  });

  it('prints a line per finished file and stage when stderr is not a terminal, nothing with --quiet', () => {
    const { stream, written } = fakeStream(false);
    const print = progressPrinter(stream, false);
    print({ stage: 'reading', file: 'f.csv', rows: 0, elapsedMs: 0, done: false });
    print({ stage: 'reading', file: 'f.csv', rows: 8192, elapsedMs: 500, done: false });
    print({ stage: 'reading', file: 'f.csv', rows: 10_000, elapsedMs: 1000, done: true });
    print({ stage: 'merging', entity: 'fuel-readings', elapsedMs: 1500 });
    print({ stage: 'refreshing', elapsedMs: 2000 });
    expect(written).toEqual([
      'reading f.csv: 10,000 rows, 10,000 rows/s, 1.0 s\n',
      'merging fuel-readings, 1.5 s\n',
      'refreshing rollups and claims, 2.0 s\n',
    ]);
    const quiet = fakeStream(false);
    progressPrinter(quiet.stream, true)({ stage: 'done', elapsedMs: 1 });
    expect(quiet.written).toEqual([]);
  });

  it('redraws one line in place on a terminal', () => {
    const { stream, written } = fakeStream(true);
    const print = progressPrinter(stream, false);
    print({ stage: 'reading', file: 'f.csv', rows: 0, elapsedMs: 0, done: false });
    print({ stage: 'reading', file: 'f.csv', rows: 5, elapsedMs: 1000, done: true });
    expect(written).toEqual([
      '\r\x1b[Kreading f.csv: 0 rows, 0 rows/s, 0.0 s',
      '\r\x1b[Kreading f.csv: 5 rows, 5 rows/s, 1.0 s\n',
    ]);
  });
});
