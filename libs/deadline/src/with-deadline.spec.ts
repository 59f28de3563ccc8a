import { DeadlineExceededError, settledWithin, withDeadline } from './with-deadline';

describe('withDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves with the work and leaves no timer behind', async () => {
    await expect(withDeadline(async () => 42, { ms: 1000, what: 'answer' })).resolves.toBe(42);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('passes the work failure through and leaves no timer behind', async () => {
    const failure = new Error('refused');
    await expect(withDeadline(() => Promise.reject(failure), { ms: 1000, what: 'answer' })).rejects.toBe(
      failure,
    );
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects when the budget is spent and aborts the signal with the same error', async () => {
    let seen: AbortSignal | undefined;
    const result = withDeadline(
      (signal) => {
        seen = signal;
        return new Promise<number>(() => undefined);
      },
      { ms: 250, what: 'slow query' },
    );
    const settled = result.catch((error: unknown) => error);
    jest.advanceTimersByTime(249);
    expect(seen?.aborted).toBe(false);
    jest.advanceTimersByTime(1);
    const error = await settled;
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect((error as Error).message).toBe('slow query did not finish within 250 ms');
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
  });

  it('rejects with the caller error when one is given', async () => {
    class HopTimeout extends Error {}
    const result = withDeadline(() => new Promise<never>(() => undefined), {
      ms: 10,
      what: 'hop',
      error: () => new HopTimeout('late'),
    });
    const settled = result.catch((error: unknown) => error);
    jest.advanceTimersByTime(10);
    expect(await settled).toBeInstanceOf(HopTimeout);
  });

  it('ends early with the outer signal reason, aborting the work signal, and leaves no timer or listener behind', async () => {
    const outer = new AbortController();
    let seen: AbortSignal | undefined;
    const result = withDeadline(
      (signal) => {
        seen = signal;
        return new Promise<never>(() => undefined);
      },
      { ms: 1000, what: 'lock wait', signal: outer.signal },
    );
    const settled = result.catch((error: unknown) => error);
    const reason = new Error('hop budget spent');
    outer.abort(reason);
    expect(await settled).toBe(reason);
    expect(seen?.reason).toBe(reason);
    expect(jest.getTimerCount()).toBe(0);
    await expect(
      withDeadline(async () => 1, { ms: 10, what: 'late start', signal: outer.signal }),
    ).rejects.toBe(reason);
  });
});

describe('settledWithin', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('is true when the work settles in time, and leaves no timer behind', async () => {
    await expect(settledWithin(Promise.resolve(), { ms: 1000, what: 'close' })).resolves.toBe(true);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('is false when the budget runs out first', async () => {
    const waited = settledWithin(new Promise(() => undefined), { ms: 1000, what: 'close', unref: true });
    jest.advanceTimersByTime(1000);
    await expect(waited).resolves.toBe(false);
  });

  it('passes on a failure of the work within the budget', async () => {
    const failure = new Error('socket error');
    await expect(settledWithin(Promise.reject(failure), { ms: 1000, what: 'close' })).rejects.toBe(failure);
  });
});
