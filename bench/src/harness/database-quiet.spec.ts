import { waitUntilNoStatementRuns } from './database-quiet';

describe('waitUntilNoStatementRuns', () => {
  const options = { intervalMs: 50, timeoutMs: 200 };

  it('returns at once, without sleeping, when nothing runs', async () => {
    const sleeps: number[] = [];
    await expect(
      waitUntilNoStatementRuns(
        async () => 0,
        async (ms) => void sleeps.push(ms),
        options,
      ),
    ).resolves.toBe(true);
    expect(sleeps).toEqual([]);
  });

  it('waits, one interval at a time, until the last statement has finished', async () => {
    const counts = [16, 9, 1, 0];
    const sleeps: number[] = [];
    const done = await waitUntilNoStatementRuns(
      async () => counts.shift()!,
      async (ms) => void sleeps.push(ms),
      options,
    );
    expect({ done, sleeps, left: counts }).toEqual({ done: true, sleeps: [50, 50, 50], left: [] });
  });

  it('gives up after the time-out while statements still run', async () => {
    const sleeps: number[] = [];
    await expect(
      waitUntilNoStatementRuns(
        async () => 3,
        async (ms) => void sleeps.push(ms),
        options,
      ),
    ).resolves.toBe(false);
    expect(sleeps).toEqual([50, 50, 50, 50]);
  });
});
