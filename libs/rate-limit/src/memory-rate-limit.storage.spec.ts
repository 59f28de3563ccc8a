import { MemoryRateLimitStorage } from './memory-rate-limit.storage';

describe('MemoryRateLimitStorage', () => {
  it('counts a fixed window, blocks past the limit and starts over after it', async () => {
    let now = 0;
    const storage = new MemoryRateLimitStorage(() => now);
    for (let hit = 1; hit <= 3; hit += 1) {
      await expect(storage.increment('ip:a', 60_000, 3, 60_000)).resolves.toMatchObject({
        totalHits: hit,
        isBlocked: false,
      });
    }
    await expect(storage.increment('ip:a', 60_000, 3, 60_000)).resolves.toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 60,
    });
    await expect(storage.increment('ip:b', 60_000, 3, 60_000)).resolves.toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
    now = 60_001;
    await expect(storage.increment('ip:a', 60_000, 3, 60_000)).resolves.toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('reports the seconds left in the window', async () => {
    let now = 0;
    const storage = new MemoryRateLimitStorage(() => now);
    await storage.increment('c', 60_000, 10, 60_000);
    now = 45_500;
    await expect(storage.increment('c', 60_000, 10, 60_000)).resolves.toMatchObject({
      totalHits: 2,
      timeToExpire: 15,
    });
  });

  it('keeps a block running past the end of its window', async () => {
    let now = 0;
    const storage = new MemoryRateLimitStorage(() => now);
    await storage.increment('c', 1_000, 1, 10_000);
    await storage.increment('c', 1_000, 1, 10_000);
    now = 5_000;
    await expect(storage.increment('c', 1_000, 1, 10_000)).resolves.toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 5,
    });
    now = 10_001;
    await expect(storage.increment('c', 1_000, 1, 10_000)).resolves.toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('starts no timer per hit, whatever the load (the default storage does, and stalls)', async () => {
    const storage = new MemoryRateLimitStorage();
    const setTimeoutSpy = jest.spyOn(global, 'setTimeout');
    for (let hit = 0; hit < 50_000; hit += 1)
      await storage.increment('busy-client', 60_000, 1_000_000, 60_000);
    expect(setTimeoutSpy).not.toHaveBeenCalled();
    setTimeoutSpy.mockRestore();
    await expect(storage.increment('busy-client', 60_000, 1_000_000, 60_000)).resolves.toMatchObject({
      totalHits: 50_001,
    });
  });

  it('forgets expired windows of keys that stopped calling', async () => {
    let now = 0;
    const storage = new MemoryRateLimitStorage(() => now);
    for (let client = 0; client < 999; client += 1)
      await storage.increment(`once:${client}`, 1_000, 5, 1_000);
    now = 2_000;
    await storage.increment('later', 1_000, 5, 1_000);
    expect((storage as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });

  it('keeps at most maxWindows windows: a spray of new keys within one window pushes out the oldest (issue 32)', async () => {
    const storage = new MemoryRateLimitStorage(() => 0, 1_000);
    for (let source = 0; source < 5_000; source += 1)
      await storage.increment(`ip:2001:db8::${source}`, 60_000, 5, 60_000);
    expect(storage.size).toBe(1_000);
    // The newest are still counted; the oldest start over.
    await expect(storage.increment('ip:2001:db8::4999', 60_000, 5, 60_000)).resolves.toMatchObject({
      totalHits: 2,
    });
    await expect(storage.increment('ip:2001:db8::0', 60_000, 5, 60_000)).resolves.toMatchObject({
      totalHits: 1,
    });
    expect(storage.size).toBe(1_000);
  });
});
