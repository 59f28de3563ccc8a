import { useContractBacking } from '../contract-backing.contract';
import { initialState } from '../menus/menu-machine';
import type { PhoneLanguageCopy } from '../phone-languages/phone-language-copy';
import type { RateLimitHit } from '../rate-limit/rate-limit.policy';
import type { OpenOptions, UssdSessionRecord } from './hop-opener';
import type { SessionRooms } from './session-rooms';

export const ussdRecord = (sessionId: string): UssdSessionRecord => ({
  sessionId,
  phoneNumber: '+254700000001',
  serviceCode: '*123#',
  state: initialState(),
  consumed: { length: 0, digest: '' },
  status: 'active',
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

export interface HopOpenerUnderTest {
  /** Rooms on the shared backing: every instance shares its locks and counters. */
  create(): SessionRooms;
  /** Rooms on a backing of their own, empty (the phone-language copy starts absent). */
  isolated(): SessionRooms;
  close?(): Promise<void>;
}

/**
 * What a hop's opening does, whatever keeps its parts: counted once, no lock past a limit, the dial's language copy
 * read with the session. Run against the Redis composition (integration, scale) and the sequential one (unit).
 */
export function describeHopOpenerContract(name: string, setup: () => HopOpenerUnderTest): void {
  describe(`${name} (hop-opener contract)`, () => {
    let rooms: SessionRooms;
    const suite = useContractBacking(setup);
    const id = (label: string): string => `${label}-${suite.run}`;
    const options = (label: string, overrides: Partial<OpenOptions> = {}): OpenOptions => ({
      waitMs: 500,
      hit: unlimitedHit(id(label)),
      ...overrides,
    });

    beforeEach(() => {
      rooms = suite.backing.create();
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
      const first = await rooms.opener.open(sessionId, { waitMs: 5000, hit });
      const waiting = suite.backing.create().opener.open(sessionId, { waitMs: 5000, hit });
      await first.lease!.commit(ussdRecord(sessionId), 60);
      const second = await waiting;
      expect([first.count, second.count]).toMatchObject([
        { totalHits: 1, isBlocked: false, timeToExpire: 60 },
        { totalHits: 2, isBlocked: false },
      ]);
      await second.lease!.release();
      const refused = await rooms.opener.open(sessionId, { waitMs: 5000, hit });
      expect(refused.lease).toBeUndefined();
      expect(refused.count).toMatchObject({ totalHits: 3, isBlocked: true, timeToBlockExpire: 30 });
      // No lock was taken: the next hop under another limit gets the session at once.
      const free = await rooms.opener.open(sessionId, options('rl', { waitMs: 1 }));
      expect(free.lease?.record?.sessionId).toBe(sessionId);
      await free.lease!.release();
    });

    it("counts the session's own limit beside the caller's, and takes no lock past either", async () => {
      const sessionId = id('per-session');
      const sessionHit: RateLimitHit = {
        name: 'session',
        key: `session:${sessionId}`,
        limit: 1,
        ttlMs: 60_000,
        blockMs: 30_000,
      };
      const first = await rooms.opener.open(sessionId, options('per-session', { sessionHit }));
      expect(first.count).toMatchObject({ totalHits: 1, isBlocked: false });
      expect(first.sessionCount).toMatchObject({ totalHits: 1, isBlocked: false, timeToExpire: 60 });
      await first.lease!.release();
      const refused = await rooms.opener.open(sessionId, options('per-session', { sessionHit }));
      expect(refused.lease).toBeUndefined();
      expect(refused.count).toMatchObject({ totalHits: 2, isBlocked: false });
      expect(refused.sessionCount).toMatchObject({ totalHits: 2, isBlocked: true, timeToBlockExpire: 30 });
      const withoutSessionLimit = await rooms.opener.open(sessionId, options('per-session'));
      expect(withoutSessionLimit.sessionCount).toBeUndefined();
      await withoutSessionLimit.lease!.release();
    });

    describe("a dial's language copy", () => {
      const phone = (n: number): string => `+2547${String(suite.run * 10 + n).padStart(8, '0')}`;
      const dialCopy = async (
        on: SessionRooms,
        label: string,
        phoneNumber: string,
      ): Promise<PhoneLanguageCopy | undefined> => {
        const { lease, phoneLanguage } = await on.opener.open(id(label), options(label, { phoneNumber }));
        await lease!.release();
        return phoneLanguage;
      };

      it('gives a dial the language written through, read with the session; a session that exists gets none', async () => {
        await rooms.copy.rememberPhoneLanguage(phone(1), 'fr', 60);
        expect(await dialCopy(rooms, 'dial', phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
        await rooms.copy.rememberPhoneLanguage(phone(1), 'sw', 60);
        expect(await dialCopy(rooms, 'dial-again', phone(1))).toEqual({ kind: 'chosen', language: 'sw' });
        const { lease } = await rooms.opener.open(id('existing'), options('existing'));
        await lease!.commit(ussdRecord(id('existing')), 60);
        expect(await dialCopy(rooms, 'existing', phone(1))).toBeUndefined();
        const withoutPhone = await rooms.opener.open(id('no-phone'), options('no-phone'));
        expect(withoutPhone.phoneLanguage).toBeUndefined();
        await withoutPhone.lease!.release();
      });

      it('says unknown before a complete copy, and none for a phone a complete copy lacks', async () => {
        const fresh = suite.backing.isolated();
        expect(await dialCopy(fresh, 'before', phone(1))).toEqual({ kind: 'unknown' });
        const token = await fresh.copy.beginPhoneLanguageFill(60_000, 60);
        await fresh.copy.fillPhoneLanguages(token!, [{ phoneNumber: phone(2), language: 'fr' }]);
        await fresh.copy.completePhoneLanguageFill(token!, 60);
        expect(await dialCopy(fresh, 'after-1', phone(1))).toEqual({ kind: 'none' });
        expect(await dialCopy(fresh, 'after-2', phone(2))).toEqual({ kind: 'chosen', language: 'fr' });
      });

      it('reads the copy also when the dial waited for its lock', async () => {
        await rooms.copy.rememberPhoneLanguage(phone(1), 'fr', 600);
        const first = await rooms.opener.open(id('waited'), options('waited', { waitMs: 5000 }));
        const waiting = suite.backing
          .create()
          .opener.open(id('waited'), options('waited', { waitMs: 5000, phoneNumber: phone(1) }));
        await first.lease!.release();
        const second = await waiting;
        expect(second.phoneLanguage).toEqual({ kind: 'chosen', language: 'fr' });
        await second.lease!.release();
      });
    });
  });
}
