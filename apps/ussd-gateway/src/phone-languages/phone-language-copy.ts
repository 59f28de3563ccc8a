/**
 * The copy of phones' remembered languages (`ussd_phones.language`) that a dial reads in the round trip that locks
 * its session, so that it needs no PostgreSQL query. Write-through: `rememberPhoneLanguage` is called after PostgreSQL
 * has committed the phone's new language. The whole copy expires at once (`ttlSeconds`, set when the copy is
 * created), which bounds the life of a copy that missed a write. An abstract class, so it is its own injection token.
 */
export abstract class PhoneLanguageCopyStore {
  abstract rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void>;
  /** The copy's answer for one phone. */
  abstract readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy>;
  /**
   * Starts filling the copy from PostgreSQL: a fill token, or null when the copy is complete or another fill (of any
   * instance) has written within `staleAfterMs`.
   */
  abstract beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null>;
  /**
   * Adds the phones of one batch read from PostgreSQL, except those the copy already holds (a change written since
   * the batch was read wins). False: the fill was overtaken (the copy was lost, or another fill took over) and must
   * stop; it will never be marked complete.
   */
  abstract fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean>;
  /** Marks the copy complete (a phone it does not hold never chose), for `ttlSeconds`; false when overtaken. */
  abstract completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean>;
}

export interface PhoneLanguageEntry {
  phoneNumber: string;
  language: string;
}

/**
 * What the copy says of a phone: the language it chose; `none` when the copy is complete and does not hold the phone
 * (it never chose); `unknown` when there is no complete copy (never filled, expired, evicted, flushed): ask PostgreSQL.
 */
export type PhoneLanguageCopy = { kind: 'chosen'; language: string } | { kind: 'none' } | { kind: 'unknown' };
