import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Injectable } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import type { AdmissionPass } from '@dmrv/rate-limit';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { UssdConfig } from '../config/ussd.config';
import type { AccountDetails, VerifyOutcome } from '../menus/menu-machine';
import { AccountsRepository, CustomerIdTakenError } from './accounts.repository';
import { PhonesRepository } from './phones.repository';
import { PinAttempt, PinGuardsRepository } from './pin-guards.repository';
import { maskPhoneNumber } from './phone-mask';
import { PinHashBusyError, PinHashGate, pinHashGateFromConfig } from './pin-hash-gate';
import { PinVault } from './pin-vault';

const CUSTOMER_ID_ATTEMPTS = 5;
/** Sealed once at start-up and checked against when the Customer ID has no account: the same work as a real check. */
const DECOY_PIN = '00000';

export function newCustomerId(): string {
  return `C${randomBytes(4).toString('hex').toUpperCase()}`;
}

/** Who makes a PIN attempt: its idempotency key (see UssdSessionService) and the session it comes from. */
export interface PinAttemptContext {
  key: string;
  sessionId: string;
  phoneNumber: string;
}

const minutesOf = (seconds: number): number => Math.max(1, Math.ceil(seconds / 60));
/** First and longest pause between two tries for a place to check a PIN. */
const PIN_WAIT_FIRST_MS = 10;
const PIN_WAIT_LONGEST_MS = 50;

/**
 * Account work the menus ask for: creation, PIN checks with a lockout shared by every session, details, PIN
 * changes. Every write is keyed by the hop that asks for it (`key`), so a hop replayed after a failure finds what it
 * did the first time; none is started once `signal` says the hop's budget is spent (the hop has answered already).
 */
@Injectable()
export class AccountsService {
  private readonly decoy: Promise<string>;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly guards: PinGuardsRepository,
    private readonly phones: PhonesRepository,
    private readonly vault: PinVault,
    private readonly config: UssdConfig,
    @InjectPinoLogger(AccountsService.name) private readonly logger: PinoLogger,
    private readonly hashes: PinHashGate = pinHashGateFromConfig(config),
  ) {
    this.decoy = vault.seal(DECOY_PIN);
    // Awaited where used; a failure there fails that hop.
    this.decoy.catch(() => undefined);
  }

  /** A new PIN as first entered, kept (encrypted) in the session until it is confirmed. */
  hold(pin: string): string {
    return this.vault.hold(pin);
  }

  /** Whether the confirmation matches the held PIN; no scrypt (see PinVault). */
  matches(pin: string, heldPin: string): boolean {
    return this.vault.matchesHeld(pin, heldPin);
  }

  /**
   * Creates the account and returns its new Customer ID (drawn again if the random one is taken), or the Customer
   * ID of the account this `key` already created.
   */
  async create(
    input: {
      phoneNumber: string;
      fullName: string;
      email: string | null;
      heldPin: string;
      language?: string | null;
    },
    key: string,
    signal?: AbortSignal,
  ): Promise<string> {
    const { heldPin, ...account } = input;
    const pinHash = await this.hashes.run(() => this.vault.sealHeld(heldPin));
    signal?.throwIfAborted();
    for (let attempt = 1; ; attempt += 1) {
      try {
        const customerId = await this.accounts.create({
          ...account,
          customerId: newCustomerId(),
          pinHash,
          pinKeyId: this.vault.keyIdOf(pinHash),
          creationKey: key,
        });
        this.logger.info({ customerId }, 'account created');
        return customerId;
      } catch (error) {
        if (!(error instanceof CustomerIdTakenError) || attempt >= CUSTOMER_ID_ATTEMPTS) throw error;
        this.logger.warn({ attempt }, 'customer id collision, drawing another');
      }
    }
  }

  /**
   * Checks a PIN. The attempt is reserved before the PIN is hashed (at most PIN_MAX_ATTEMPTS per lock window,
   * however many arrive at once), and a Customer ID without an account is answered, counted, locked and timed
   * exactly like one with an account and a wrong PIN. A right PIN from a phone other than the account's is allowed
   * (households share handsets) and recorded.
   */
  async verify(
    customerId: string,
    pin: string,
    attempt: PinAttemptContext,
    signal?: AbortSignal,
  ): Promise<VerifyOutcome> {
    // A place for the hash is taken before the attempt is reserved: a hop refused for load is never charged.
    let hashPlace: AdmissionPass;
    try {
      hashPlace = this.hashes.admit();
    } catch (error) {
      if (error instanceof PinHashBusyError) return { kind: 'overloaded' };
      throw error;
    }
    try {
      return await this.verifyAdmitted(customerId, pin, attempt, hashPlace, signal);
    } finally {
      hashPlace.release();
    }
  }

  private async verifyAdmitted(
    customerId: string,
    pin: string,
    attempt: PinAttemptContext,
    hashPlace: AdmissionPass,
    signal?: AbortSignal,
  ): Promise<VerifyOutcome> {
    const maxAttempts = this.config.PIN_MAX_ATTEMPTS;
    const reservation = await this.reserve(customerId, attempt.key, signal);
    if (reservation.kind === 'pending') return { kind: 'busy' };
    if (reservation.kind === 'locked')
      return { kind: 'locked', minutes: minutesOf(reservation.lockSecondsLeft), justNow: false };
    const { account } = reservation;
    const sealed = account?.pinHash ?? (await this.decoy);
    const matches = await hashPlace.run(() => this.vault.verify(pin, sealed));
    if (account && matches) {
      signal?.throwIfAborted();
      const otherPhone =
        account.phoneNumber === attempt.phoneNumber
          ? null
          : {
              accountId: account.id,
              phoneNumber: attempt.phoneNumber,
              sessionId: attempt.sessionId,
              attemptKey: attempt.key,
            };
      await this.guards.recordRightPin(customerId, reservation.ticket, maxAttempts, otherPhone);
      if (otherPhone) this.logger.info({ customerId }, 'log-in from a phone other than the account’s');
      if (account.pinKeyId !== this.vault.currentKeyId) {
        await this.accounts.rewrapPin(
          account.id,
          this.vault.rewrap(account.pinHash),
          this.vault.currentKeyId,
        );
      }
      return {
        kind: 'ok',
        firstName: account.fullName.split(' ')[0] ?? account.fullName,
        language: account.language,
        pinVersion: account.pinVersion,
      };
    }
    if (reservation.position >= maxAttempts) {
      signal?.throwIfAborted();
      await this.guards.confirmLock(customerId, reservation.ticket);
      this.logger.warn({ customerId }, 'customer id locked after too many wrong PINs');
      return { kind: 'locked', minutes: minutesOf(this.config.PIN_LOCKOUT_SECONDS), justNow: true };
    }
    return { kind: 'wrong', attemptsLeft: maxAttempts - reservation.position };
  }

  /**
   * A place to check a PIN. While every place is taken by attempts still being checked (a burst, or the owner
   * logging in from several sessions at once), waits for one of them to free it or to lock the Customer ID: at most
   * a share of the hop budget, then `pending` (the subscriber is asked to try again; nothing was charged).
   */
  private async reserve(customerId: string, key: string, signal?: AbortSignal): Promise<PinAttempt> {
    const waitUntil = Date.now() + dependencyTimeouts(this.config.HOP_TIMEOUT_MS).pinAttemptWaitMs;
    for (let pause = PIN_WAIT_FIRST_MS; ; pause = Math.min(pause * 2, PIN_WAIT_LONGEST_MS)) {
      signal?.throwIfAborted();
      const reservation = await this.guards.reservePinAttempt(
        customerId,
        key,
        this.config.PIN_MAX_ATTEMPTS,
        this.config.PIN_LOCKOUT_SECONDS,
      );
      if (reservation.kind !== 'pending' || Date.now() + pause > waitUntil) return reservation;
      await sleep(pause, undefined, { signal });
    }
  }

  /** Minutes until the lock of `customerId` ends; 0 when it is not locked. */
  async lockMinutesLeft(customerId: string): Promise<number> {
    const seconds = await this.guards.lockSecondsLeft(customerId);
    return seconds > 0 ? minutesOf(seconds) : 0;
  }

  /**
   * What a signed-in hop checks first, in one read: minutes until the account's lock ends (0: not locked) and its
   * PIN version (null: no such account).
   */
  async signedInStanding(customerId: string): Promise<{ lockMinutes: number; pinVersion: number | null }> {
    const { lockSecondsLeft, pinVersion } = await this.guards.signedInStanding(customerId);
    return { lockMinutes: lockSecondsLeft > 0 ? minutesOf(lockSecondsLeft) : 0, pinVersion };
  }

  /** The account as shown to whoever is signed in: the phone number masked (see maskPhoneNumber). */
  async details(customerId: string): Promise<AccountDetails | null> {
    const account = await this.accounts.findByCustomerId(customerId);
    if (!account) return null;
    return {
      customerId: account.customerId,
      fullName: account.fullName,
      email: account.email,
      phoneNumber: maskPhoneNumber(account.phoneNumber),
    };
  }

  /**
   * Writes the new PIN over `expectedVersion` (the version the old PIN was checked against), once per `key`: a
   * replay of the hop that changed it changes nothing more. The new version, or null when the PIN was changed
   * elsewhere since (nothing written).
   */
  async replacePin(
    customerId: string,
    heldPin: string,
    key: string,
    expectedVersion: number | null,
    signal?: AbortSignal,
  ): Promise<number | null> {
    const pinHash = await this.hashes.run(() => this.vault.sealHeld(heldPin));
    signal?.throwIfAborted();
    const outcome = await this.accounts.changePin(
      customerId,
      key,
      pinHash,
      this.vault.keyIdOf(pinHash),
      expectedVersion,
    );
    if (outcome.kind === 'missing') throw new Error('account vanished during a PIN change');
    if (outcome.kind === 'replaced' || outcome.kind === 'replayed') return outcome.pinVersion;
    this.logger.info({ customerId }, 'PIN change refused: the PIN was changed in another session meanwhile');
    return null;
  }

  /** The language last chosen on this phone, or null when it never chose one. */
  phoneLanguage(phoneNumber: string): Promise<string | null> {
    return this.phones.phoneLanguage(phoneNumber);
  }

  /** Phones that chose a language, in phone-number order after `after` (for the copy in the session store). */
  phoneLanguagesAfter(
    after: string,
    limit: number,
  ): Promise<Array<{ phoneNumber: string; language: string }>> {
    return this.phones.phoneLanguagesAfter(after, limit);
  }

  /** Remembers a chosen language for the phone and, when signed in, for the account. */
  rememberLanguage(phoneNumber: string, customerId: string | null, language: string): Promise<void> {
    return this.phones.rememberLanguage(phoneNumber, customerId, language);
  }

  /** Re-encrypts every PIN sealed under a retired key; returns how many were rewrapped. */
  async rewrapAll(batchSize = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.accounts.findSealedUnderOtherKeys(this.vault.currentKeyId, batchSize);
      if (batch.length === 0) return total;
      for (const row of batch)
        await this.accounts.rewrapPin(row.id, this.vault.rewrap(row.pinHash), this.vault.currentKeyId);
      total += batch.length;
    }
  }
}
