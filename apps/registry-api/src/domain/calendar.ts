/**
 * Dates and instants the API accepts, checked field by field rather than through `new Date()`: JavaScript rolls
 * 2024-02-30 over to March and accepts year 0000, which PostgreSQL has no room for (1 BC is its year before 0001),
 * so such values used to pass validation and fail in the database. Years run 0001–9999: what four digits can write
 * and what both PostgreSQL's `date` and `timestamptz` hold.
 */

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|[+-](\d{2}):(\d{2}))$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function isDateParts(year: number, month: number, day: number): boolean {
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** `YYYY-MM-DD`, a real day of the proleptic Gregorian calendar in the years 0001–9999. */
export function isCalendarDate(value: string): boolean {
  const match = DATE.exec(value);
  return match !== null && isDateParts(Number(match[1]), Number(match[2]), Number(match[3]));
}

/**
 * An RFC 3339 date-time with its offset (`2024-01-01T00:00:00Z`, `2024-01-01T02:00+02:00`; seconds and up to six
 * fraction digits optional): a real calendar day in 0001–9999, hours 00–23, minutes and seconds 00–59. Offsets go up
 * to ±15:59, the most PostgreSQL accepts (RFC 3339 allows ±23:59; real zones span −12:00…+14:00).
 */
export function isTimestamp(value: string): boolean {
  const match = DATE_TIME.exec(value);
  if (match === null) return false;
  const [, year, month, day, hour, minute, second = '00', offsetHours = '00', offsetMinutes = '00'] = match;
  return (
    isDateParts(Number(year), Number(month), Number(day)) &&
    Number(hour) <= 23 &&
    Number(minute) <= 59 &&
    Number(second) <= 59 &&
    Number(offsetHours) <= 15 &&
    Number(offsetMinutes) <= 59
  );
}

// Microseconds since 1970-01-01T00:00:00Z of 0001-01-01T00:00:00Z and of 10000-01-01T00:00:00Z.
const FIRST_MICROSECOND = -62_135_596_800_000_000n;
const END_MICROSECOND = 253_402_300_800_000_000n;

/** Microseconds since the epoch, as a decimal integer, of an instant in the years 0001–9999. */
export function isEpochMicroseconds(value: string): boolean {
  if (!/^-?\d{1,18}$/.test(value)) return false;
  const microseconds = BigInt(value);
  return microseconds >= FIRST_MICROSECOND && microseconds < END_MICROSECOND;
}

/** Anything PostgreSQL's `text` can hold and a filter can sensibly name: no NUL, no other control character. */
export function isPlainText(value: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this looks for
  return !/[\u0000-\u001f\u007f]/.test(value);
}
