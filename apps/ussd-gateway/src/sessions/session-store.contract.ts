import { initialState } from '../menus/menu-machine';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import { OpenOptions, PhoneLanguageCopy, runOnLease, SessionBusyError, SessionRecord, SessionStore } from './session-store';

export const sessionRecord = (
  sessionId: string,
  status: SessionRecord['status'] = 'active',
): SessionRecord => ({
  sessionId,
  phoneNumber: '+254700000001',
  serviceCode: '*123#',
  state: initialState(),
  consumed: { length: 0, digest: '' },
  status,
  replies: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

/** Far from any limit: for tests about sessions, not counting. */
export const unlimitedHit = (key: string): RateLimitHit => ({
  name: 'default',
  key: `default:${key}`,
  limit: 1_000_000,
  ttlMs: 60_000,
  blockMs: 60_000,
});

export interface StoreUnderTest {
  /** A store on the shared backing; `now` is its clock (the Redis store's for its index, its keys expire in Redis). */
  create(now?: () => number): SessionStore;
  /** A store on a backing of its own, empty (its phone-language copy starts absent). */
  isolated(now?: () => number): SessionStore;
  close?(): Promise<void>;
}

/**
 * What every session store does, whatever keeps the sessions: run against the Redis store (integration) and the
 * in-memory one (unit), so that the zero-config mode behaves as production does.
 */
export function describeSessionStoreContract(name: string, setup: () => StoreUnderTest): void {
  describe(`${name} (session-store contract)`, () => {
    let backing: StoreUnderTest;
    let store: SessionStore;
    let run = 0;
    // Session ids unique per test, so tests on a shared backing never meet.
    const id = (label: string): string => `${label}-${run}`;
    const options = (label: string, overrides: Partial<OpenOptions> = {}): OpenOptions => ({
      waitMs: 500,
      hit: unlimitedHit(id(label)),
      ...overrides,
    });

    beforeAll(() => {
      backing = setup();
    });

    afterAll(async () => {
      await backing.close?.();
    });

    beforeEach(() => {
      run += 1;
      store = backing.create();
    });

    it('lists active sessions oldest activity first, never ended ones, and forgets expired ones', async () => {
      let now = Date.now();
      const clocked = backing.create(() => now);
      await clocked.save(sessionRecord(id('a')), 180);
      await clocked.save(sessionRecord(id('b')), 60);
      await clocked.save(sessionRecord(id('c'), 'ended'), 180);
      expect(await clocked.get(id('a'))).toEqual(sessionRecord(id('a')));
      expect(await clocked.get(id('missing'))).toBeNull();
      const mine = async (): Promise<string[]> =>
        (await clocked.listActive(1000)).filter((listed) => listed.endsWith(`-${run}`));
      expect(await mine()).toEqual([id('b'), id('a')]);
      await clocked.save(sessionRecord(id('a'), 'ended'), 180);
      expect(await mine()).toEqual([id('b')]);
      now += 61_000;
      expect(await mine()).toEqual([]);
    });

    it('returns copies, never the stored object', async () => {
      await store.save(sessionRecord(id('copy')), 180);
      const first = await store.get(id('copy'));
      first!.status = 'ended';
      expect((await store.get(id('copy')))?.status).toBe('active');
    });

    it('reads and writes a session in one hop, and saves nothing when the work fails', async () => {
      const sessionId = id('w');
      const hop = async <T>(
        work: (record: SessionRecord | null) => Promise<{ value: T; save?: SessionRecord }>,
      ): Promise<T> => {
        const { lease } = await store.open(sessionId, options('w'));
        return runOnLease(lease!, 120, work);
      };
      await expect(hop(async (found) => ({ value: found }))).resolves.toBeNull();
      await expect(hop(() => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
      expect(await store.get(sessionId)).toBeNull();
      await hop(async () => ({ value: undefined, save: sessionRecord(sessionId) }));
      await expect(hop(async (found) => ({ value: found?.sessionId }))).resolves.toBe(sessionId);
    });

    it('lets one hop at a time hold a session, and a waiting hop gets it once it is given back', async () => {
      const sessionId = id('s');
      const first = await store.open(sessionId, options('s'));
      await expect(backing.create().open(sessionId, options('s', { waitMs: 50 }))).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      const waiting = backing.create().open(sessionId, options('s', { waitMs: 5000 }));
      await first.lease!.commit(sessionRecord(sessionId), 60);
      const second = await waiting;
      expect(second.lease?.record?.sessionId).toBe(sessionId);
      await second.lease!.release();
      await second.lease!.release();
    });

    it('gives the session back when the hop runs out of budget, and saves nothing afterwards', async () => {
      const sessionId = id('late');
      const deadline = new AbortController();
      const late = await store.open(sessionId, options('late', { signal: deadline.signal }));
      deadline.abort(new Error('hop budget spent'));
      // The aggregator's retry gets the session at once, while the late hop still holds its lease.
      const retry = await store.open(sessionId, options('late', { waitMs: 50 }));
      expect(retry.lease?.record).toBeNull();
      await retry.lease!.release();
      await expect(late.lease!.commit(sessionRecord(sessionId), 60)).rejects.toThrow('hop budget spent');
      expect(await store.get(sessionId)).toBeNull();
    });

    it('counts each hop once, also when it waits for the lock, and takes no lock past the limit', async () => {
      const sessionId = id('rl');
      const hit: RateLimitHit = {
        name: 'phone',
        key: `phone:${id('rl')}`,
        limit: 2,
        ttlMs: 60_000,
        blockMs: 30_000,
      };
      const first = await store.open(sessionId, { waitMs: 5000, hit });
      const waiting = backing.create().open(sessionId, { waitMs: 5000, hit });
      await first.lease!.commit(sessionRecord(sessionId), 60);
      const second = await waiting;
      expect([first.count, second.count]).toMatchObject([
        { totalHits: 1, isBlocked: false, timeToExpire: 60 },
        { totalHits: 2, isBlocked: false },
      ]);
      await second.lease!.release();
      const refused = await store.open(sessionId, { waitMs: 5000, hit });
      expect(refused.lease).toBeUndefined();
      expect(refused.count).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 30 });
      // No lock was taken: the next hop under another limit gets the session at once.
      const free = await store.open(sessionId, options('rl', { waitMs: 1 }));
      expect(free.lease?.record?.sessionId).toBe(sessionId);
      await free.lease!.release();
    });

    it("counts the session's own limit beside the caller's, and takes no lock past either", async () => {
      const sessionId = id('per-session');
      const sessionHit: RateLimitHit = { name: 'session', key: `session:${sessionId}`, limit: 1, ttlMs: 60_000, blockMs: 30_000 };
      const first = await store.open(sessionId, options('per-session', { sessionHit }));
      expect(first.count).toMatchObject({ totalHits: 1, isBlocked: false });
      expect(first.sessionCount).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
      await first.lease!.release();
      const refused = await store.open(sessionId, options('per-session', { sessionHit }));
      expect(refused.lease).toBeUndefined();
      expect(refused.count).toMatchObject({ totalHits: 2, isBlocked: false });
      expect(refused.sessionCount).toMatchObject({ totalHits: 2, isBlocked: true, timeToBlockExpire: 30 });
      const withoutSessionLimit = await store.open(sessionId, options('per-session'));
      expect(withoutSessionLimit.sessionCount).toBeUndefined();
      await withoutSessionLimit.lease!.release();
    });

    describe('the phone-language copy', () => {
      // Phone numbers unique per test, E.164 as the service passes them.
      const phone = (n: number): string => `+2547${String(run * 10 + n).padStart(8, '0')}`;
      const dialCopy = async (on: SessionStore, label: string, phoneNumber: string): Promise<PhoneLanguageCopy | undefined> => {
        const { lease } = await on.open(id(label), options(label, { phoneNumber }));
        await lease!.release();
        return lease!.phoneLanguage;
      };

      it("gives a dial the language written through, read with the session; a session that exists gets none", async () => {
        await store.rememberPhoneLanguage(phone(1), 'fr', 60);
        expect(await dialCopy(store, 'dial', phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
        expect(await store.readPhoneLanguage(phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
        await store.rememberPhoneLanguage(phone(1), 'sw', 60);
        expect(await dialCopy(store, 'dial-again', phone(1))).toEqual({ kind: 'chosen', language: 'sw' });
        const { lease } = await store.open(id('existing'), options('existing'));
        await lease!.commit(sessionRecord(id('existing')), 60);
        expect(await dialCopy(store, 'existing', phone(1))).toBeUndefined();
        expect((await store.open(id('no-phone'), options('no-phone'))).lease?.phoneLanguage).toBeUndefined();
      });

      it('is unknown until a fill completes; a fill keeps changes written meanwhile; then a phone it lacks never chose', async () => {
        const fresh = backing.isolated();
        expect(await dialCopy(fresh, 'before', phone(1))).toEqual({ kind: 'unknown' });
        const token = await fresh.beginPhoneLanguageFill(60_000, 60);
        expect(token).toEqual(expect.any(String));
        expect(await fresh.beginPhoneLanguageFill(60_000, 60)).toBeNull();
        // A change committed after the fill read its batch from PostgreSQL.
        await fresh.rememberPhoneLanguage(phone(2), 'sw', 60);
        await expect(
          fresh.fillPhoneLanguages(token!, [
            { phoneNumber: phone(1), language: 'fr' },
            { phoneNumber: phone(2), language: 'en' },
          ]),
        ).resolves.toBe(true);
        expect(await fresh.readPhoneLanguage(phone(3))).toEqual({ kind: 'unknown' });
        await expect(fresh.completePhoneLanguageFill(token!, 60)).resolves.toBe(true);
        expect(await dialCopy(fresh, 'after-1', phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
        expect(await dialCopy(fresh, 'after-2', phone(2))).toEqual({ kind: 'chosen', language: 'sw' });
        expect(await dialCopy(fresh, 'after-3', phone(3))).toEqual({ kind: 'none' });
        expect(await fresh.beginPhoneLanguageFill(60_000, 60)).toBeNull();
      });

      it('lets a fill that stopped writing be taken over, and the overtaken fill never marks the copy complete', async () => {
        let now = Date.now();
        const fresh = backing.isolated(() => now);
        const stalled = await fresh.beginPhoneLanguageFill(60_000, 600);
        now += 30_000;
        expect(await fresh.beginPhoneLanguageFill(60_000, 600)).toBeNull();
        now += 31_000;
        const next = await fresh.beginPhoneLanguageFill(60_000, 600);
        expect(next).not.toBeNull();
        expect(next).not.toBe(stalled);
        await expect(fresh.fillPhoneLanguages(stalled!, [{ phoneNumber: phone(1), language: 'fr' }])).resolves.toBe(false);
        await expect(fresh.completePhoneLanguageFill(stalled!, 600)).resolves.toBe(false);
        expect(await fresh.readPhoneLanguage(phone(1))).toEqual({ kind: 'unknown' });
        await expect(fresh.completePhoneLanguageFill(next!, 600)).resolves.toBe(true);
        expect(await fresh.readPhoneLanguage(phone(1))).toEqual({ kind: 'none' });
      });
    });
  });
}
