import { PhoneLanguageCopy, PhoneLanguageCopyStore, PhoneLanguageEntry } from './phone-language-copy';

/** The copy in process memory, as the Redis store keeps it: phone → language, complete once a fill has finished. */
export class MemoryPhoneLanguageCopyStore extends PhoneLanguageCopyStore {
  private phoneLanguages = new Map<string, string>();
  private complete = false;
  private expireAt = Infinity;
  private filling: { token: string; at: number } | undefined;
  private fills = 0;

  constructor(private readonly now: () => number = Date.now) {
    super();
  }

  async rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void> {
    this.expire();
    // As Redis's EXPIRE only when the key has no TTL: a change never extends the copy's life.
    if (this.expireAt === Infinity) this.expireAt = this.now() + ttlSeconds * 1000;
    this.phoneLanguages.set(phoneNumber, language);
  }

  async readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy> {
    this.expire();
    const language = this.phoneLanguages.get(phoneNumber);
    if (language !== undefined) return { kind: 'chosen', language };
    return this.complete ? { kind: 'none' } : { kind: 'unknown' };
  }

  async beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null> {
    this.expire();
    const now = this.now();
    if (this.complete || (this.filling && this.filling.at > now - staleAfterMs)) return null;
    if (this.expireAt === Infinity) this.expireAt = now + ttlSeconds * 1000;
    this.filling = { token: `fill.${(this.fills += 1)}`, at: now };
    return this.filling.token;
  }

  async fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean> {
    this.expire();
    if (this.filling?.token !== token) return false;
    for (const { phoneNumber, language } of entries)
      if (!this.phoneLanguages.has(phoneNumber)) this.phoneLanguages.set(phoneNumber, language);
    this.filling.at = this.now();
    return true;
  }

  async completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean> {
    this.expire();
    if (this.filling?.token !== token) return false;
    this.filling = undefined;
    this.complete = true;
    this.expireAt = this.now() + ttlSeconds * 1000;
    return true;
  }

  /** The whole copy expires at once, marks included, as the Redis hash does. */
  private expire(): void {
    if (this.expireAt > this.now()) return;
    this.phoneLanguages = new Map();
    this.complete = false;
    this.expireAt = Infinity;
    this.filling = undefined;
  }
}
