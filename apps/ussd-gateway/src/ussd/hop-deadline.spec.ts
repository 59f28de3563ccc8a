import { HopDeadline } from './hop-deadline';

class LateHop extends Error {}

describe('HopDeadline', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('resolves with the work, leaves no timer behind and never aborts', async () => {
    let seen: HopDeadline | undefined;
    const listener = jest.fn();
    await expect(
      HopDeadline.run(1000, () => new LateHop(), async (deadline) => {
        seen = deadline;
        deadline.addEventListener('abort', listener);
        return 42;
      }),
    ).resolves.toBe(42);
    expect(jest.getTimerCount()).toBe(0);
    expect(seen?.aborted).toBe(false);
    expect(listener).not.toHaveBeenCalled();
  });

  it('passes the work failure through and leaves no timer behind', async () => {
    const failure = new Error('refused');
    await expect(HopDeadline.run(1000, () => new LateHop(), () => Promise.reject(failure))).rejects.toBe(failure);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('at the budget rejects with the error, aborts with it and tells each listener once; a removed one is not told', async () => {
    let seen: HopDeadline | undefined;
    const told = jest.fn();
    const removed = jest.fn();
    const result = HopDeadline.run(
      250,
      () => new LateHop('late'),
      (deadline) => {
        seen = deadline;
        deadline.addEventListener('abort', told);
        deadline.addEventListener('abort', removed);
        deadline.removeEventListener('abort', removed);
        return new Promise<never>(() => undefined);
      },
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
    let seen: HopDeadline | undefined;
    const settled = HopDeadline.run(
      100,
      () => new LateHop(),
      (deadline) => {
        seen = deadline;
        early = deadline.signal;
        return new Promise<never>(() => undefined);
      },
    ).catch((error: unknown) => error);
    expect(seen?.signal).toBe(early);
    expect(early?.aborted).toBe(false);
    jest.advanceTimersByTime(100);
    const error = await settled;
    expect(early?.aborted).toBe(true);
    expect(early?.reason).toBe(error);

    let passed: HopDeadline | undefined;
    const late = HopDeadline.run(
      100,
      () => new LateHop(),
      (deadline) => {
        passed = deadline;
        return new Promise<never>(() => undefined);
      },
    ).catch((failure: unknown) => failure);
    jest.advanceTimersByTime(100);
    const lateError = await late;
    expect(passed?.signal.aborted).toBe(true);
    expect(passed?.signal.reason).toBe(lateError);
  });
});
