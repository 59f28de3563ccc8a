import { DEFAULT_RETRY, parseRetryAfter, retryDelay, retryPolicy } from './retry-policy';

const NOW = Date.UTC(2026, 0, 1, 12, 0, 0);

describe('parseRetryAfter', () => {
  it.each([
    ['seconds', '120', 120_000],
    ['zero seconds', '0', 0],
    ['seconds with spaces', ' 3 ', 3_000],
    ['an HTTP date 90 s ahead', 'Thu, 01 Jan 2026 12:01:30 GMT', 90_000],
    ['an HTTP date in the past', 'Thu, 01 Jan 2026 11:00:00 GMT', 0],
    ['an RFC 850 date', 'Thursday, 01-Jan-26 12:00:05 GMT', 5_000],
  ])('reads %s', (_case, value, expected) => {
    expect(parseRetryAfter(value, NOW)).toBe(expected);
  });

  it.each([
    ['absent', null],
    ['empty', ''],
    ['negative', '-5'],
    ['a fraction', '1.5'],
    ['not a date', 'soon'],
    ['a date that does not parse', 'Thu, 99 Foo 2026 12:00:00 GMT'],
  ])('gives no hint for %s', (_case, value) => {
    expect(parseRetryAfter(value, NOW)).toBeUndefined();
  });
});

describe('retryDelay', () => {
  const policy = { ...DEFAULT_RETRY, minDelayMs: 100, maxDelayMs: 1_000 };

  it('doubles the ceiling per retry up to maxDelayMs, each wait between half and all of it', () => {
    const waits = [1, 2, 3, 4, 5, 6].map((retry) => [
      retryDelay(retry, undefined, policy, () => 0),
      retryDelay(retry, undefined, policy, () => 1),
    ]);
    expect(waits).toEqual([
      [50, 100],
      [100, 200],
      [200, 400],
      [400, 800],
      [500, 1_000],
      [500, 1_000],
    ]);
  });

  it("waits what the server's Retry-After says, and not at all past maxDelayMs", () => {
    expect(retryDelay(1, 0, policy, () => 1)).toBe(0);
    expect(retryDelay(3, 700, policy, () => 1)).toBe(700);
    expect(retryDelay(1, 1_001, policy, () => 1)).toBeUndefined();
  });
});

describe('retryPolicy', () => {
  it('completes a partial policy from the defaults; false is no retry', () => {
    expect(retryPolicy({ retries: 5 })).toEqual({ ...DEFAULT_RETRY, retries: 5 });
    expect(retryPolicy(undefined)).toEqual(DEFAULT_RETRY);
    expect(retryPolicy(false).retries).toBe(0);
  });
});
