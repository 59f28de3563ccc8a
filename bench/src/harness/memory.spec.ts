import { waitUntilQuiet } from './memory';

describe('waitUntilQuiet', () => {
  const options = { intervalMs: 200, maxBusyShare: 0.1, timeoutMs: 1000 };

  /** CPU seconds read in turn: two readings per look (before and after the interval). */
  function readings(values: Array<number | undefined>): {
    read: () => number | undefined;
    sleeps: number[];
    sleep: (ms: number) => Promise<void>;
  } {
    const sleeps: number[] = [];
    let index = 0;
    return {
      read: () => values[Math.min(index++, values.length - 1)],
      sleeps,
      sleep: (ms) => {
        sleeps.push(ms);
        return Promise.resolve();
      },
    };
  }

  it('waits while the process uses more than the share of a core, and stops at the first quiet interval', async () => {
    // 0.2 s of CPU in 0.2 s (a whole core), then 0.05 s, then 0.01 s (5 % of a core: quiet).
    const cpu = readings([1, 1.2, 1.2, 1.25, 1.25, 1.26, 9, 9]);

    await expect(waitUntilQuiet(cpu.read, cpu.sleep, options)).resolves.toBe(true);
    expect(cpu.sleeps).toEqual([200, 200, 200]);
  });

  it('gives up after the time-out, and without CPU readings', async () => {
    const busy = readings(Array.from({ length: 20 }, (_, index) => index * 0.2));
    await expect(waitUntilQuiet(busy.read, busy.sleep, options)).resolves.toBe(false);
    expect(busy.sleeps).toHaveLength(5);

    const unreadable = readings([undefined]);
    await expect(waitUntilQuiet(unreadable.read, unreadable.sleep, options)).resolves.toBe(false);
  });
});
