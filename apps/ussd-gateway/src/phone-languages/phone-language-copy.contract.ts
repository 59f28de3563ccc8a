import { useContractBacking } from '../contract-backing.contract';
import { PhoneLanguageCopyStore } from './phone-language-copy';

export interface CopyStoreUnderTest {
  /** A copy on a backing of its own, empty (absent until written or filled); `now` is its clock. */
  isolated(now?: () => number): PhoneLanguageCopyStore;
  close?(): Promise<void>;
}

/** What every phone-language copy does, on Redis (integration) and in process memory (unit). */
export function describePhoneLanguageCopyContract(name: string, setup: () => CopyStoreUnderTest): void {
  describe(`${name} (phone-language copy contract)`, () => {
    const suite = useContractBacking(setup);
    // Phone numbers unique per test, E.164 as the service passes them.
    const phone = (n: number): string => `+2547${String(suite.run * 10 + n).padStart(8, '0')}`;

    it('answers with the language written through, the latest one winning', async () => {
      const copy = suite.backing.isolated();
      await copy.rememberPhoneLanguage(phone(1), 'fr', 60);
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
      await copy.rememberPhoneLanguage(phone(1), 'sw', 60);
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'chosen', language: 'sw' });
    });

    it('is unknown until a fill completes; a fill keeps changes written meanwhile; then a phone it lacks never chose', async () => {
      const copy = suite.backing.isolated();
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'unknown' });
      const token = await copy.beginPhoneLanguageFill(60_000, 60);
      expect(token).toEqual(expect.any(String));
      expect(await copy.beginPhoneLanguageFill(60_000, 60)).toBeNull();
      // A change committed after the fill read its batch from PostgreSQL.
      await copy.rememberPhoneLanguage(phone(2), 'sw', 60);
      await expect(
        copy.fillPhoneLanguages(token!, [
          { phoneNumber: phone(1), language: 'fr' },
          { phoneNumber: phone(2), language: 'en' },
        ]),
      ).resolves.toBe(true);
      expect(await copy.readPhoneLanguage(phone(3))).toEqual({ kind: 'unknown' });
      await expect(copy.completePhoneLanguageFill(token!, 60)).resolves.toBe(true);
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'chosen', language: 'fr' });
      expect(await copy.readPhoneLanguage(phone(2))).toEqual({ kind: 'chosen', language: 'sw' });
      expect(await copy.readPhoneLanguage(phone(3))).toEqual({ kind: 'none' });
      expect(await copy.beginPhoneLanguageFill(60_000, 60)).toBeNull();
    });

    it('lets a fill that stopped writing be taken over, and the overtaken fill never marks the copy complete', async () => {
      let now = Date.now();
      const copy = suite.backing.isolated(() => now);
      const stalled = await copy.beginPhoneLanguageFill(60_000, 600);
      now += 30_000;
      expect(await copy.beginPhoneLanguageFill(60_000, 600)).toBeNull();
      now += 31_000;
      const next = await copy.beginPhoneLanguageFill(60_000, 600);
      expect(next).not.toBeNull();
      expect(next).not.toBe(stalled);
      await expect(
        copy.fillPhoneLanguages(stalled!, [{ phoneNumber: phone(1), language: 'fr' }]),
      ).resolves.toBe(false);
      await expect(copy.completePhoneLanguageFill(stalled!, 600)).resolves.toBe(false);
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'unknown' });
      await expect(copy.completePhoneLanguageFill(next!, 600)).resolves.toBe(true);
      expect(await copy.readPhoneLanguage(phone(1))).toEqual({ kind: 'none' });
    });
  });
}
