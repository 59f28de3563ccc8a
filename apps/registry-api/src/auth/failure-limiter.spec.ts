import { FailureLimiter } from './failure-limiter';

describe('FailureLimiter', () => {
  let now = 0;
  const clock = () => now;

  beforeEach(() => {
    now = 1_000_000;
  });

  const refusal = (limiter: FailureLimiter, address: string, client: string): number => {
    const decision = limiter.reserve(address, client);
    return decision.allowed ? 0 : decision.retryAfterSeconds;
  };

  it('lets an address and client id fail up to the limit, counting each attempt before it runs', () => {
    const limiter = new FailureLimiter(3, 100, 60_000, clock);
    for (let i = 0; i < 3; i += 1) expect(limiter.reserve('10.0.0.1', 'rc_a').allowed).toBe(true);
    expect(refusal(limiter, '10.0.0.1', 'rc_a')).toBe(60);
    expect(limiter.retryAfterSeconds('10.0.0.1', 'rc_a')).toBe(60);
    now += 45_500;
    expect(refusal(limiter, '10.0.0.1', 'rc_a')).toBe(15);
    now += 14_500;
    expect(refusal(limiter, '10.0.0.1', 'rc_a')).toBe(0);
  });

  it('keeps another client id from the same address, and the same id from another address, apart', () => {
    const limiter = new FailureLimiter(2, 100, 60_000, clock);
    limiter.reserve('10.0.0.1', 'rc_a');
    limiter.reserve('10.0.0.1', 'rc_a');
    expect(refusal(limiter, '10.0.0.1', 'rc_a')).toBe(60);
    expect(refusal(limiter, '10.0.0.1', 'rc_b')).toBe(0);
    expect(refusal(limiter, '10.0.0.2', 'rc_a')).toBe(0);
  });

  it('limits an address over all client ids', () => {
    const limiter = new FailureLimiter(30, 3, 60_000, clock);
    for (const client of ['rc_a', 'rc_b', 'rc_c'])
      expect(limiter.reserve('10.0.0.1', client).allowed).toBe(true);
    expect(refusal(limiter, '10.0.0.1', 'rc_d')).toBe(60);
    expect(refusal(limiter, '10.0.0.2', 'rc_d')).toBe(0);
  });

  it('takes a released attempt back from both windows, once', () => {
    const limiter = new FailureLimiter(1, 1, 60_000, clock);
    const first = limiter.reserve('10.0.0.1', 'rc_a');
    expect(first.allowed).toBe(true);
    expect(refusal(limiter, '10.0.0.1', 'rc_a')).toBe(60);
    if (first.allowed) {
      first.reservation.release();
      first.reservation.release();
    }
    expect(limiter.reserve('10.0.0.1', 'rc_b').allowed).toBe(true);
    expect(refusal(limiter, '10.0.0.1', 'rc_c')).toBe(60);
  });

  it('does not take a release back from a later window', () => {
    const limiter = new FailureLimiter(1, 5, 60_000, clock);
    const old = limiter.reserve('a', 'rc_a');
    now += 61_000;
    expect(limiter.reserve('a', 'rc_a').allowed).toBe(true);
    if (old.allowed) old.reservation.release();
    expect(refusal(limiter, 'a', 'rc_a')).toBe(60);
  });

  it('does nothing when both limits are off', () => {
    const limiter = new FailureLimiter(0, 0, 60_000, clock);
    for (let i = 0; i < 100; i += 1) expect(limiter.reserve('a', 'rc_a').allowed).toBe(true);
  });

  it('keeps memory bounded, forgetting expired windows first', () => {
    const limiter = new FailureLimiter(1, 100, 60_000, clock, 2);
    limiter.reserve('a', 'rc_a');
    now += 61_000;
    limiter.reserve('b', 'rc_b');
    limiter.reserve('c', 'rc_c');
    expect(refusal(limiter, 'b', 'rc_b')).toBe(60);
    expect(refusal(limiter, 'c', 'rc_c')).toBe(60);
  });
});
