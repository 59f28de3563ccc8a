import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { UssdConfig } from '../config/ussd.config';
import type { AccountDetails, VerifyOutcome } from '../menus/menu-machine';
import { AccountsRepository, CustomerIdTakenError } from './accounts.repository';
import { PinVault } from './pin-vault';

export const PIN_VAULT = Symbol('PIN_VAULT');
const CUSTOMER_ID_ATTEMPTS = 5;

export function newCustomerId(): string {
  return `C${randomBytes(4).toString('hex').toUpperCase()}`;
}

/** Account work the menus ask for: creation, PIN checks with a lockout shared by every session, details. */
@Injectable()
export class AccountsService {
  /** Checked against when the Customer ID is unknown, so "no such account" costs as long as "wrong PIN". */
  private decoy: Promise<string> | undefined;

  constructor(
    private readonly accounts: AccountsRepository,
    @Inject(PIN_VAULT) private readonly vault: PinVault,
    private readonly config: UssdConfig,
    @InjectPinoLogger(AccountsService.name) private readonly logger: PinoLogger,
  ) {}

  /** A new PIN as first entered, kept (encrypted) in the session until it is confirmed. */
  hold(pin: string): string {
    return this.vault.hold(pin);
  }

  /** Whether the confirmation matches the held PIN; no scrypt (see PinVault). */
  matches(pin: string, heldPin: string): Promise<boolean> {
    return this.vault.matchesHeld(pin, heldPin);
  }

  /** Creates the account and returns its new Customer ID, drawing again if the random one is taken. */
  async create(input: { phoneNumber: string; fullName: string; email: string | null; heldPin: string }): Promise<string> {
    const { heldPin, ...account } = input;
    const pinHash = await this.vault.sealHeld(heldPin);
    for (let attempt = 1; ; attempt += 1) {
      const customerId = newCustomerId();
      try {
        await this.accounts.create({ ...account, customerId, pinHash, pinKeyId: this.vault.keyIdOf(pinHash) });
        this.logger.info({ customerId }, 'account created');
        return customerId;
      } catch (error) {
        if (!(error instanceof CustomerIdTakenError) || attempt >= CUSTOMER_ID_ATTEMPTS) throw error;
        this.logger.warn({ attempt }, 'customer id collision, drawing another');
      }
    }
  }

  async verify(customerId: string, pin: string): Promise<VerifyOutcome> {
    const account = await this.accounts.findByCustomerId(customerId);
    if (!account) {
      this.decoy ??= this.vault.seal('00000');
      await this.vault.verify(pin, await this.decoy);
      return { kind: 'unknown' };
    }
    if (account.lockSecondsLeft > 0) return { kind: 'locked', minutes: Math.ceil(account.lockSecondsLeft / 60), justNow: false };
    if (await this.vault.verify(pin, account.pinHash)) {
      await this.accounts.recordSuccess(account.id);
      if (account.pinKeyId !== this.vault.currentKeyId) {
        await this.accounts.replacePin(account.id, this.vault.rewrap(account.pinHash), this.vault.currentKeyId);
      }
      return { kind: 'ok', firstName: account.fullName.split(' ')[0] ?? account.fullName };
    }
    const failure = await this.accounts.recordFailure(account.id, this.config.PIN_MAX_ATTEMPTS, this.config.PIN_LOCKOUT_SECONDS);
    if (failure.lockSeconds > 0) {
      this.logger.warn({ customerId }, 'account locked after too many wrong PINs');
      return { kind: 'locked', minutes: Math.ceil(failure.lockSeconds / 60), justNow: true };
    }
    return { kind: 'wrong', attemptsLeft: this.config.PIN_MAX_ATTEMPTS - failure.attempts };
  }

  async details(customerId: string): Promise<AccountDetails | null> {
    const account = await this.accounts.findByCustomerId(customerId);
    if (!account) return null;
    return { customerId: account.customerId, fullName: account.fullName, email: account.email, phoneNumber: account.phoneNumber };
  }

  async replacePin(customerId: string, heldPin: string): Promise<void> {
    const account = await this.accounts.findByCustomerId(customerId);
    if (!account) throw new Error('account vanished during a PIN change');
    const pinHash = await this.vault.sealHeld(heldPin);
    await this.accounts.replacePin(account.id, pinHash, this.vault.keyIdOf(pinHash));
  }

  /** Re-encrypts every PIN sealed under a retired key; returns how many were rewrapped. */
  async rewrapAll(batchSize = 500): Promise<number> {
    let total = 0;
    for (;;) {
      const batch = await this.accounts.findSealedUnderOtherKeys(this.vault.currentKeyId, batchSize);
      if (batch.length === 0) return total;
      for (const row of batch) await this.accounts.replacePin(row.id, this.vault.rewrap(row.pinHash), this.vault.currentKeyId);
      total += batch.length;
    }
  }
}
