import { isCalendarDate, isEpochMicroseconds, isPlainText, isTimestamp } from './calendar';

describe('calendar values', () => {
  it.each(['2024-02-29', '0001-01-01', '9999-12-31', '2023-12-31'])('%s is a date', (value) => {
    expect(isCalendarDate(value)).toBe(true);
  });

  it.each([
    '0000-01-01',
    '2023-02-29',
    '2024-02-30',
    '2024-13-01',
    '2024-00-10',
    '2024-01-00',
    '2024-1-01',
    '10000-01-01',
    ' 2024-01-01',
    '2024-01-01T00:00:00Z',
    '',
  ])('%j is not a date', (value) => {
    expect(isCalendarDate(value)).toBe(false);
  });

  it.each([
    '2024-01-01T00:00:00Z',
    '2024-01-01T00:00Z',
    '2024-06-03T00:00:00.000001Z',
    '2024-02-29T23:59:59+02:00',
    '0001-01-01T00:00:00+01:00',
    '9999-12-31T23:59:59-15:59',
    '2024-06-01T12:00:00+14:00',
  ])('%s is a timestamp', (value) => {
    expect(isTimestamp(value)).toBe(true);
  });

  it.each([
    '0000-01-01T00:00:00Z',
    '2024-02-30T00:00:00Z',
    '2024-01-01T24:00:00Z',
    '2024-01-01T12:60:00Z',
    '2024-01-01T12:00:60Z',
    '2024-01-01T00:00:00+99:00',
    '2024-01-01T00:00:00+16:00',
    '2024-01-01T00:00:00-23:59',
    '2024-01-01T00:00:00+01:60',
    '2024-01-01T00:00:00',
    '2024-01-01T00:00:00.1234567Z',
    '2024-01-01',
    'yesterday',
  ])('%j is not a timestamp', (value) => {
    expect(isTimestamp(value)).toBe(false);
  });

  it('bounds epoch microseconds to the years 0001–9999', () => {
    expect(isEpochMicroseconds('0')).toBe(true);
    expect(isEpochMicroseconds('1717230600000000')).toBe(true);
    expect(isEpochMicroseconds('-62135596800000000')).toBe(true);
    expect(isEpochMicroseconds('-62135596800000001')).toBe(false);
    expect(isEpochMicroseconds('253402300799999999')).toBe(true);
    expect(isEpochMicroseconds('253402300800000000')).toBe(false);
    expect(isEpochMicroseconds('999999999999999999')).toBe(false);
    expect(isEpochMicroseconds('1.5')).toBe(false);
    expect(isEpochMicroseconds('')).toBe(false);
  });

  it('refuses NUL and other control characters in text', () => {
    expect(isPlainText('East Region')).toBe(true);
    expect(isPlainText('Région du Nord – 北')).toBe(true);
    for (const bad of ['\u0000', 'East\u0000', 'a\tb', 'a\nb', '\u007f'])
      expect(isPlainText(bad)).toBe(false);
  });
});
