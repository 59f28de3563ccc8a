import { FailureLimiter } from './failure-limiter';

describe('FailureLimiter', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  it('lets an address fail up to the limit, then refuses it until the window ends', () => {
    const limiter = new FailureLimiter(3, 60_000, clock);
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.retryAfterSeconds('10.0.0.1')).toBe(0);
      limiter.recordFailure('10.0.0.1');
    }
    expect(limiter.retryAfterSeconds('10.0.0.1')).toBe(60);
    now += 45_500;
    expect(limiter.retryAfterSeconds('10.0.0.1')).toBe(15);
    expect(limiter.retryAfterSeconds('10.0.0.2')).toBe(0);
    now += 14_500;
    expect(limiter.retryAfterSeconds('10.0.0.1')).toBe(0);
  });

  it('starts a new window after the old one ends', () => {
    const limiter = new FailureLimiter(2, 60_000, clock);
    limiter.recordFailure('a');
    now += 61_000;
    limiter.recordFailure('a');
    expect(limiter.retryAfterSeconds('a')).toBe(0);
  });

  it('does nothing when disabled', () => {
    const limiter = new FailureLimiter(0, 60_000, clock);
    for (let i = 0; i < 100; i += 1) limiter.recordFailure('a');
    expect(limiter.retryAfterSeconds('a')).toBe(0);
  });

  it('keeps memory bounded', () => {
    const limiter = new FailureLimiter(1, 60_000, clock, 2);
    limiter.recordFailure('a');
    limiter.recordFailure('b');
    limiter.recordFailure('c');
    expect(limiter.retryAfterSeconds('a')).toBe(0);
    expect(limiter.retryAfterSeconds('c')).toBe(60);
  });
});
