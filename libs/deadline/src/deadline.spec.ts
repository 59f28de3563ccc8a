import { Deadline } from './with-deadline';

class LateHop extends Error {}

describe('Deadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves with the work, leaves no timer behind and never aborts', async () => {
    let seen: Deadline | undefined;
    const listener = jest.fn();
    await expect(
      Deadline.run(
        async (deadline) => {
          seen = deadline;
          deadline.addEventListener('abort', listener);
          return 42;
        },
        { ms: 1000, what: 'the hop', error: () => new LateHop() },
      ),
    ).resolves.toBe(42);
    expect(jest.getTimerCount()).toBe(0);
    expect(seen?.aborted).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('passes the work failure through and leaves no timer behind', async () => {
    const failure = new Error('refused');
    await expect(
      Deadline.run(() => Promise.reject(failure), { ms: 1000, what: 'the hop', error: () => new LateHop() }),
    ).rejects.toBe(failure);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('at the budget rejects with the error, aborts with it and tells each listener once; a removed one is not told', async () => {
    let seen: Deadline | undefined;
    const told = jest.fn();
    const removed = jest.fn();
    const result = Deadline.run(
      (deadline) => {
        seen = deadline;
        deadline.addEventListener('abort', told);
        deadline.addEventListener('abort', removed);
        deadline.removeEventListener('abort', removed);
        return new Promise<never>(() => undefined);
      },
      { ms: 250, what: 'the hop', error: () => new LateHop('late') },
    );
    const settled = result.catch((error: unknown) => error);
    jest.advanceTimersByTime(249);
    expect(seen?.aborted).toBe(false);
    expect(() => seen?.throwIfAborted()).not.toThrow();
    jest.advanceTimersByTime(1);
    const error = await settled;
    expect(error).toBeInstanceOf(LateHop);
    expect(seen?.aborted).toBe(true);
    expect(seen?.reason).toBe(error);
    expect(() => seen?.throwIfAborted()).toThrow(error as Error);
    expect(told).toHaveBeenCalledTimes(1);
    expect(removed).not.toHaveBeenCalled();
    const afterwards = jest.fn();
    seen?.addEventListener('abort', afterwards);
    expect(afterwards).not.toHaveBeenCalled();
  });

  it('makes a real signal only when asked, aborted with the deadline, or at once when asked after it', async () => {
    let early: AbortSignal | undefined;
    let seen: Deadline | undefined;
    const settled = Deadline.run(
      (deadline) => {
        seen = deadline;
        early = deadline.signal;
        return new Promise<never>(() => undefined);
      },
      { ms: 100, what: 'the hop', error: () => new LateHop() },
    ).catch((error: unknown) => error);
    expect(seen?.signal).toBe(early);
    expect(early?.aborted).toBe(false);
    jest.advanceTimersByTime(100);
    const error = await settled;
    expect(early?.aborted).toBe(true);
    expect(early?.reason).toBe(error);

    let passed: Deadline | undefined;
    const late = Deadline.run(
      (deadline) => {
        passed = deadline;
        return new Promise<never>(() => undefined);
      },
      { ms: 100, what: 'the hop', error: () => new LateHop() },
    ).catch((failure: unknown) => failure);
    jest.advanceTimersByTime(100);
    const lateError = await late;
    expect(passed?.signal.aborted).toBe(true);
    expect(passed?.signal.reason).toBe(lateError);
  });
});
