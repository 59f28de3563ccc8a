import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { MemorySessionStore } from './memory-session.store';
import { describeSessionStoreContract, unlimitedHit } from './session-store.contract';

describeSessionStoreContract('MemorySessionStore', () => {
  const shared = new MemorySessionStore();
  return { create: (now) => (now ? new MemorySessionStore(now) : shared), isolated: (now) => new MemorySessionStore(now) };
});

describe('MemorySessionStore', () => {
  it('loses the whole phone-language copy, marks included, when it expires', async () => {
    let now = Date.now();
    const store = new MemorySessionStore(() => now);
    const token = await store.beginPhoneLanguageFill(60_000, 100);
    // Nobody chose yet: the complete copy holds no phone when the first change arrives.
    await store.fillPhoneLanguages(token!, []);
    await store.completePhoneLanguageFill(token!, 100);
    now += 50_000;
    // A change keeps the copy's expiry (as on Redis, where only a key without a TTL gets one).
    await store.rememberPhoneLanguage('+254700000002', 'sw', 100);
    now += 49_000;
    expect(await store.readPhoneLanguage('+254700000003')).toEqual({ kind: 'none' });
    now += 1_000;
    for (const phone of ['+254700000002', '+254700000003'])
      expect(await store.readPhoneLanguage(phone)).toEqual({ kind: 'unknown' });
    expect(await store.beginPhoneLanguageFill(60_000, 100)).not.toBeNull();
  });

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
