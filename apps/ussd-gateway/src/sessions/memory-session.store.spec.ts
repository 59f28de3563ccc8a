import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { MemorySessionStore } from './memory-session.store';
import { describeSessionStoreContract, unlimitedHit } from './session-store.contract';

describeSessionStoreContract('MemorySessionStore', () => {
  const shared = new MemorySessionStore();
  return { create: (now) => (now ? new MemorySessionStore(now) : shared) };
});

describe('MemorySessionStore', () => {
  it('counts hops in the counter it is given (the one the other endpoints count in)', async () => {
    const counter = new MemoryRateLimitStorage();
    const store = new MemorySessionStore(Date.now, counter);
    const hit = unlimitedHit('10.0.0.1');
    const { lease } = await store.open('r', { waitMs: 100, hit });
    await lease!.release();
    await expect(counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs)).resolves.toMatchObject({
      totalHits: 2,
    });
  });
});
