import { useContractBacking } from '../contract-backing.contract';
import { LockOptions, runOnLease, SessionBusyError, SessionRecord, SessionStore } from './session-store';

/** A record whose state is whatever the layer above keeps: this room stores it as it is. */
export const sessionRecord = (
  sessionId: string,
  status: SessionRecord['status'] = 'active',
): SessionRecord => ({
  sessionId,
  phoneNumber: '+254700000001',
  serviceCode: '*123#',
  state: { screen: 'main', language: 'en' },
  consumed: { length: 0, digest: '' },
  status,
  replies: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

export interface SessionStoreUnderTest {
  /** A store on the shared backing; `now` is its clock (the Redis store's for its index, its keys expire in Redis). */
  create(now?: () => number): SessionStore;
  close?(): Promise<void>;
}

/**
 * What every session store does, whatever keeps the sessions: run against the Redis store (integration) and the
 * in-memory one (unit), so that the zero-config mode behaves as production does.
 */
export function describeSessionStoreContract(name: string, setup: () => SessionStoreUnderTest): void {
  describe(`${name} (session-store contract)`, () => {
    let store: SessionStore;
    const suite = useContractBacking(setup);
    // Session ids unique per test, so tests on a shared backing never meet.
    const id = (label: string): string => `${label}-${suite.run}`;
    const options = (overrides: Partial<LockOptions> = {}): LockOptions => ({ waitMs: 500, ...overrides });

    beforeEach(() => {
      store = suite.backing.create();
    });

    it('lists active sessions oldest activity first, never ended ones, and forgets expired ones', async () => {
      let now = Date.now();
      const clocked = suite.backing.create(() => now);
      await clocked.save(sessionRecord(id('a')), 180);
      await clocked.save(sessionRecord(id('b')), 60);
      await clocked.save(sessionRecord(id('c'), 'ended'), 180);
      expect(await clocked.get(id('a'))).toEqual(sessionRecord(id('a')));
      expect(await clocked.get(id('missing'))).toBeNull();
      const mine = async (): Promise<string[]> =>
        (await clocked.listActive(1000)).filter((listed) => listed.endsWith(`-${suite.run}`));
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
      ): Promise<T> => runOnLease(await store.open(sessionId, options()), 120, work);
      await expect(hop(async (found) => ({ value: found }))).resolves.toBeNull();
      await expect(hop(() => Promise.reject(new Error('work failed')))).rejects.toThrow('work failed');
      expect(await store.get(sessionId)).toBeNull();
      await hop(async () => ({ value: undefined, save: sessionRecord(sessionId) }));
      await expect(hop(async (found) => ({ value: found?.sessionId }))).resolves.toBe(sessionId);
    });

    it('lets one hop at a time hold a session, and a waiting hop gets it once it is given back', async () => {
      const sessionId = id('s');
      const first = await store.open(sessionId, options());
      await expect(suite.backing.create().open(sessionId, options({ waitMs: 50 }))).rejects.toBeInstanceOf(
        SessionBusyError,
      );
      const waiting = suite.backing.create().open(sessionId, options({ waitMs: 5000 }));
      await first.commit(sessionRecord(sessionId), 60);
      const second = await waiting;
      expect(second.record?.sessionId).toBe(sessionId);
      await second.release();
      await second.release();
    });

    it('gives the session back when the hop runs out of budget, and saves nothing afterwards', async () => {
      const sessionId = id('late');
      const deadline = new AbortController();
      const late = await store.open(sessionId, options({ signal: deadline.signal }));
      deadline.abort(new Error('hop budget spent'));
      // The aggregator's retry gets the session at once, while the late hop still holds its lease.
      const retry = await store.open(sessionId, options({ waitMs: 50 }));
      expect(retry.record).toBeNull();
      await retry.release();
      await expect(late.commit(sessionRecord(sessionId), 60)).rejects.toThrow('hop budget spent');
      expect(await store.get(sessionId)).toBeNull();
    });
  });
}
