import { Injectable } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { AccountsService } from '../accounts/accounts.service';
import { PhoneLanguageCopy, PhoneLanguageCopyStore } from '../phone-languages/phone-language-copy';

/**
 * How long the whole copy lives once made. It is never refreshed by reads: a copy that missed a change (Redis was
 * unreachable between PostgreSQL's commit and the copy's write, or the process died there) is wrong for at most this
 * long, at the price of one fill from PostgreSQL a day.
 */
export const PHONE_LANGUAGE_COPY_TTL_SECONDS = 24 * 60 * 60;
/** A fill that has written nothing for this long is taken over (its instance stopped). */
export const PHONE_LANGUAGE_FILL_STALE_MS = 60_000;
const FILL_BATCH = 1000;

/**
 * The language a phone last chose (`ussd_phones.language`), kept in PostgreSQL and copied write-through into the
 * copy store (phone-languages/), so that a dial reads it in the round trip that locks its session and asks PostgreSQL nothing.
 *
 * - A change writes PostgreSQL first, then the copy.
 * - The copy holds only phones that chose; once filled from PostgreSQL it is marked complete, and a phone it does not
 *   hold never chose (the country code decides, with no query).
 * - Without a complete copy (never filled, expired, evicted, flushed) a dial reads PostgreSQL, and starts one fill in
 *   the background. A fill adds only phones the copy does not hold yet (a change written meanwhile wins) and stops,
 *   unmarked, if the copy is lost under it.
 */
@Injectable()
export class PhoneLanguages {
  private filling: Promise<boolean> | undefined;

  constructor(
    private readonly store: PhoneLanguageCopyStore,
    private readonly accounts: AccountsService,
    @InjectPinoLogger(PhoneLanguages.name) private readonly logger: PinoLogger,
  ) {}

  /** The language `phoneNumber` chose, or null: from the copy a dial's lease carries, else from PostgreSQL. */
  async chosen(phoneNumber: string, copy: PhoneLanguageCopy | undefined): Promise<string | null> {
    if (copy?.kind === 'chosen') return copy.language;
    if (copy?.kind === 'none') return null;
    this.fillInBackground();
    return this.accounts.phoneLanguage(phoneNumber);
  }

  /** Remembers a chosen language for the phone (and the signed-in account): PostgreSQL, then the copy. */
  async remember(phoneNumber: string, customerId: string | null, language: string): Promise<void> {
    await this.accounts.rememberLanguage(phoneNumber, customerId, language);
    await this.store.rememberPhoneLanguage(phoneNumber, language, PHONE_LANGUAGE_COPY_TTL_SECONDS);
  }

  /**
   * Fills the copy from PostgreSQL and marks it complete. False when there was nothing to do (complete already, or
   * another fill under way) or the fill was overtaken. One at a time per process.
   */
  fill(): Promise<boolean> {
    this.filling ??= this.fillOnce().finally(() => (this.filling = undefined));
    return this.filling;
  }

  private fillInBackground(): void {
    if (this.filling) return;
    this.fill().catch((error: unknown) =>
      this.logger.warn(
        { err: error },
        'the phone-language copy could not be filled: dials keep reading PostgreSQL',
      ),
    );
  }

  private async fillOnce(): Promise<boolean> {
    const token = await this.store.beginPhoneLanguageFill(
      PHONE_LANGUAGE_FILL_STALE_MS,
      PHONE_LANGUAGE_COPY_TTL_SECONDS,
    );
    if (token === null) return false;
    let after = '';
    for (;;) {
      const batch = await this.accounts.phoneLanguagesAfter(after, FILL_BATCH);
      if (batch.length === 0) break;
      if (!(await this.store.fillPhoneLanguages(token, batch))) return false;
      after = batch[batch.length - 1]!.phoneNumber;
    }
    return this.store.completePhoneLanguageFill(token, PHONE_LANGUAGE_COPY_TTL_SECONDS);
  }
}
