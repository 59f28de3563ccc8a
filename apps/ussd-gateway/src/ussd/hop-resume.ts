import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { AccountsService } from '../accounts/accounts.service';
import { CountryLanguages, languageOfPhone } from '../menus/country-languages';
import { MenuRenderer } from '../menus/menu-renderer';
import { heldToPinVersion, initialState, lockedOut, MenuState } from '../menus/menu-machine';
import type { PhoneLanguageCopy } from '../phone-languages/phone-language-copy';
import { ConsumedMark, markOf, PositionedInput } from './cumulative-text';
import type { UssdSessionRecord } from './hop-opener';
import { PhoneLanguages } from './phone-languages';
import { SessionDigests } from './session-digests';

/** The session a hop continues, the state its first input meets, and the PIN version it is held to. */
export interface ResumedSession {
  record: UssdSessionRecord;
  state: MenuState;
  /** The account's PIN version as the store has it now; null when not signed in or not asked. */
  pinVersion: number | null;
  /** When the hop began: a new record's creation time and every record's update time. */
  now: string;
}

/** Where a hop starts from: the session's record, or a new one in the phone's language; a signed-in one checked anew. */
@Injectable()
export class HopResume {
  /** A new session has consumed the empty text; its keyed digest is the same for every dial. */
  private readonly nothingConsumed: ConsumedMark;

  constructor(
    private readonly accounts: AccountsService,
    private readonly phoneLanguages: PhoneLanguages,
    private readonly countryLanguages: CountryLanguages,
    private readonly renderer: MenuRenderer,
    digests: SessionDigests,
    @InjectPinoLogger(HopResume.name) private readonly logger: PinoLogger,
  ) {
    this.nothingConsumed = markOf('', digests.text);
  }

  async resume(
    request: UssdSessionRequest,
    existing: UssdSessionRecord | null,
    inputs: readonly PositionedInput[],
    phoneLanguage: PhoneLanguageCopy | undefined,
  ): Promise<ResumedSession> {
    const now = new Date().toISOString();
    const record =
      existing ?? this.opened(request, await this.languageOf(request.phoneNumber, phoneLanguage), now);
    let state = record.state;
    let pinVersion: number | null = null;
    if (state.auth && inputs.length > 0) {
      // Since this session signed in, another one's wrong PINs may have locked the account, or another one may have
      // changed its PIN (whoever knew the old one is signed out with it, on every screen it reaches: afterStep).
      const standing = await this.accounts.signedInStanding(state.auth.customerId);
      pinVersion = standing.pinVersion;
      if (standing.lockMinutes > 0) state = lockedOut(standing.lockMinutes, state.language);
      else state = heldToPinVersion(state, pinVersion, inputs[0]?.value);
    }
    return { record, state, pinVersion, now };
  }

  /** A new session's record: nothing consumed yet, the main menu in `language`. */
  private opened(request: UssdSessionRequest, language: string, now: string): UssdSessionRecord {
    return {
      sessionId: request.sessionId,
      phoneNumber: request.phoneNumber,
      serviceCode: request.serviceCode,
      state: initialState(language),
      consumed: this.nothingConsumed,
      status: 'active',
      replies: [],
      createdAt: now,
      updatedAt: now,
    };
  }

  /**
   * The language a new session opens in: the one last chosen on this phone (the language copy, read with the session,
   * else PostgreSQL), else its country code's. A database that cannot say only costs the remembered choice (logged),
   * never the dial: the main menu needs no database.
   */
  private async languageOf(phoneNumber: string, copy: PhoneLanguageCopy | undefined): Promise<string> {
    try {
      const chosen = await this.phoneLanguages.chosen(phoneNumber, copy);
      if (chosen && this.renderer.languageCodes.includes(chosen)) return chosen;
    } catch (error) {
      this.logger.warn({ err: error }, 'the remembered language could not be read: the country code decides');
    }
    return languageOfPhone(phoneNumber, this.countryLanguages);
  }
}
