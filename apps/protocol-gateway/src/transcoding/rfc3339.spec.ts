import { utcDateTime } from './rfc3339';

const MIN = -62_135_596_800; // 0001-01-01T00:00:00Z
const MAX = 253_402_300_799; // 9999-12-31T23:59:59Z
const DAY = 86_400;

function viaDate(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

describe('utcDateTime: the date and time toISOString prints, without a Date', () => {
  it.each([
    [MIN, '0001-01-01T00:00:00'],
    [MAX, '9999-12-31T23:59:59'],
    [0, '1970-01-01T00:00:00'],
    [-1, '1969-12-31T23:59:59'],
    [951_782_400, '2000-02-29T00:00:00'],
    [-2_203_891_200, '1900-03-01T00:00:00'],
    [4_107_542_399, '2100-02-28T23:59:59'],
    [13_574_563_200, '2400-02-29T00:00:00'],
    [-11_676_096_000, '1600-01-01T00:00:00'],
    [1_704_067_200, '2024-01-01T00:00:00'],
  ])('%i → %s', (seconds, expected) => {
    expect(utcDateTime(seconds)).toBe(expected);
    expect(viaDate(seconds)).toBe(expected);
  });

  it('agrees with toISOString on every day from 1890 to 2110 and every 97th day of years 1–9999', () => {
    const mismatches: number[] = [];
    const check = (seconds: number): void => {
      if (utcDateTime(seconds) !== viaDate(seconds)) mismatches.push(seconds);
    };
    for (let seconds = -2_524_521_600; seconds < 4_417_977_600; seconds += DAY) check(seconds + 43_199);
    // Starting at each end, so that both 0001-01-01 and 9999-12-31 are on the grid.
    for (let seconds = MIN; seconds <= MAX; seconds += 97 * DAY) check(seconds);
    for (let seconds = MAX; seconds >= MIN; seconds -= 97 * DAY) check(seconds);
    expect(mismatches).toEqual([]);
  });

  it('agrees with toISOString on every second of a day before the epoch', () => {
    const mismatches: number[] = [];
    for (let seconds = -DAY * 30_000; seconds < -DAY * 29_999; seconds += 1) {
      if (utcDateTime(seconds) !== viaDate(seconds)) mismatches.push(seconds);
    }
    expect(mismatches).toEqual([]);
  });
});
