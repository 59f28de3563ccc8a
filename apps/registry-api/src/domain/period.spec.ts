import { parsePeriod, PeriodFormatError, quarterOf } from './period';

describe('parsePeriod', () => {
  it.each([
    ['2024-Q1', '2024-01-01', '2024-03-31'],
    ['2024-Q2', '2024-04-01', '2024-06-30'],
    ['2023-Q3', '2023-07-01', '2023-09-30'],
    ['2023-Q4', '2023-10-01', '2023-12-31'],
    ['2024', '2024-01-01', '2024-12-31'],
    ['2024-02', '2024-02-01', '2024-02-29'],
    ['2023-02', '2023-02-01', '2023-02-28'],
    ['2024-12', '2024-12-01', '2024-12-31'],
  ])('%s covers %s..%s', (label, start, end) => {
    expect(parsePeriod(label)).toEqual({ label, start, end });
  });

  it.each([
    '2024-Q5',
    '2024-Q0',
    '2024-q1',
    '24-Q1',
    '2024-13',
    '2024-00',
    '2024-1',
    'Q1-2024',
    '',
    '2024-Q1 ',
    '0999',
  ])('rejects %j', (value) => {
    expect(() => parsePeriod(value)).toThrow(PeriodFormatError);
  });

  it('names the quarter of a date', () => {
    expect(quarterOf('2024-01-01')).toBe('2024-Q1');
    expect(quarterOf('2024-06-30')).toBe('2024-Q2');
    expect(quarterOf('2024-12-31')).toBe('2024-Q4');
  });
});
