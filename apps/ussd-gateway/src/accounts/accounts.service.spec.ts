import crypto, { randomBytes } from 'node:crypto';
import type { PinoLogger } from '@dmrv/logging';
import { UssdConfig } from '../config/ussd.config';
import { AccountRow, AccountsRepository, CustomerIdTakenError, NewAccount } from './accounts.repository';
import type { PhonesRepository } from './phones.repository';
import type { AccountForLogin, PinAttempt, PinGuardsRepository } from './pin-guards.repository';
import { AccountsService } from './accounts.service';
import { PinVault } from './pin-vault';

const logger = { info: jest.fn(), warn: jest.fn() } as unknown as PinoLogger;
const config = Object.assign(new UssdConfig(), { PIN_MAX_ATTEMPTS: 3, PIN_LOCKOUT_SECONDS: 900 });
const attempt = { key: 'attempt-key', sessionId: 'session-1', phoneNumber: '+254700000001' };

type Repositories = [AccountsRepository, PinGuardsRepository, PhonesRepository];
/** A class's public methods (an intersection of classes with private fields would be `never`). */
type Methods<T> = { [K in keyof T]: T[K] };

/** The service's three repositories, each answering with `overrides` (a test names only the methods it needs). */
function fakeRepository(
  overrides: Partial<Methods<AccountsRepository> & Methods<PinGuardsRepository> & Methods<PhonesRepository>>,
): Repositories {
  return [overrides, overrides, overrides] as unknown as Repositories;
}

const row: AccountRow & { language: string | null; pinVersion: number } = {
  id: 'id-1',
  customerId: 'C0A1B2C3D',
  fullName: 'Jane Smith',
  email: null,
  phoneNumber: '+254700000001',
  pinHash: '',
  pinKeyId: 'k2',
  language: 'sw',
  pinVersion: 1,
};

describe('AccountsService', () => {
  const retired = { id: 'k1', key: randomBytes(32) };
  const vault = new PinVault({ id: 'k2', key: randomBytes(32) }, [retired]);
  const reserved = (account: AccountForLogin | null, position = 1, ticket = position): PinAttempt => ({
    kind: 'reserved',
    ticket,
    position,
    account,
  });

  it('draws another Customer ID when the first is taken, under the same creation key', async () => {
    const tried: NewAccount[] = [];
    const repository = fakeRepository({
      create: async (account: NewAccount) => {
        tried.push(account);
        if (tried.length === 1) throw new CustomerIdTakenError(account.customerId);
        return account.customerId;
      },
    });
    const service = new AccountsService(...repository, vault, config, logger);
    const customerId = await service.create(
      { phoneNumber: '+254700000001', fullName: 'Jane', email: null, heldPin: vault.hold('24680') },
      'hop-key',
    );
    expect(tried).toHaveLength(2);
    expect(customerId).toBe(tried[1]!.customerId);
    expect(customerId).toMatch(/^C[0-9A-F]{8}$/);
    expect(tried.map((account) => account.creationKey)).toEqual(['hop-key', 'hop-key']);
  });

  it('hashes a new PIN once, when the account is written, however many Customer IDs it takes', async () => {
    const written: NewAccount[] = [];
    const repository = fakeRepository({
      create: async (account: NewAccount) => {
        written.push(account);
        if (written.length === 1) throw new CustomerIdTakenError(account.customerId);
        return account.customerId;
      },
    });
    const service = new AccountsService(...repository, vault, config, logger);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      const heldPin = service.hold('24680');
      expect(service.matches('24680', heldPin)).toBe(true);
      expect(service.matches('13579', heldPin)).toBe(false);
      expect(scrypt).not.toHaveBeenCalled();
      await service.create(
        { phoneNumber: '+254700000001', fullName: 'Jane', email: null, heldPin },
        'hop-key',
      );
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }
    expect(written[1]!.pinHash).toBe(written[0]!.pinHash);
    expect(written[1]).toMatchObject({ pinKeyId: 'k2' });
    expect(JSON.stringify(written)).not.toContain('24680');
    await expect(vault.verify('24680', written[1]!.pinHash)).resolves.toBe(true);
  });

  it('writes nothing once the hop has run out of budget', async () => {
    const create = jest.fn();
    const changePin = jest.fn();
    const reservePinAttempt = jest.fn();
    const service = new AccountsService(
      ...fakeRepository({ create, changePin, reservePinAttempt }),
      vault,
      config,
      logger,
    );
    const spent = AbortSignal.abort(new Error('hop budget spent'));
    await expect(
      service.create(
        { phoneNumber: '+254700000001', fullName: 'Jane', email: null, heldPin: vault.hold('24680') },
        'k',
        spent,
      ),
    ).rejects.toThrow('hop budget spent');
    await expect(service.replacePin('C0A1B2C3D', vault.hold('97531'), 'k', 1, spent)).rejects.toThrow(
      'hop budget spent',
    );
    await expect(service.verify('C0A1B2C3D', '24680', attempt, spent)).rejects.toThrow('hop budget spent');
    expect(create).not.toHaveBeenCalled();
    expect(changePin).not.toHaveBeenCalled();
    expect(reservePinAttempt).not.toHaveBeenCalled();
  });

  it('hashes a changed PIN once, when it replaces the old one, under the hop key', async () => {
    const changed: Array<[string, string, string]> = [];
    const repository = fakeRepository({
      changePin: async (_customerId: string, key: string, pinHash: string, keyId: string) => {
        changed.push([key, pinHash, keyId]);
        return { kind: 'replaced' as const, pinVersion: 2 };
      },
    });
    const service = new AccountsService(...repository, vault, config, logger);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      await expect(service.replacePin('C0A1B2C3D', service.hold('97531'), 'change-key', 1)).resolves.toBe(2);
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }
    expect(changed[0]![0]).toBe('change-key');
    expect(changed[0]![2]).toBe('k2');
    await expect(vault.verify('97531', changed[0]![1])).resolves.toBe(true);
  });

  it('rewraps a PIN sealed under a retired key when it is verified', async () => {
    const oldSeal = await new PinVault(retired).seal('24680');
    const rewrapped: Array<[string, string]> = [];
    const repository = fakeRepository({
      reservePinAttempt: async () => reserved({ ...row, pinHash: oldSeal, pinKeyId: 'k1' }),
      recordRightPin: async () => undefined,
      rewrapPin: async (_id: string, pinHash: string, keyId: string) => void rewrapped.push([pinHash, keyId]),
    });
    const service = new AccountsService(...repository, vault, config, logger);
    await expect(service.verify('C0A1B2C3D', '24680', attempt)).resolves.toEqual({
      kind: 'ok',
      firstName: 'Jane',
      language: 'sw',
      pinVersion: 1,
    });
    expect(rewrapped).toHaveLength(1);
    expect(rewrapped[0]![1]).toBe('k2');
    await expect(vault.verify('24680', rewrapped[0]![0])).resolves.toBe(true);
  });

  it('clears the attempts up to its own on a right PIN, and records a log-in from another phone', async () => {
    const sealed = await vault.seal('24680');
    const recordRightPin = jest.fn(async () => undefined);
    const repository = fakeRepository({
      reservePinAttempt: async () => reserved({ ...row, pinHash: sealed }, 2, 7),
      recordRightPin,
    });
    const service = new AccountsService(...repository, vault, config, logger);
    await service.verify('C0A1B2C3D', '24680', attempt);
    await service.verify('C0A1B2C3D', '24680', { ...attempt, phoneNumber: '+254711000111' });
    expect(recordRightPin.mock.calls).toEqual([
      ['C0A1B2C3D', 7, 3, null],
      [
        'C0A1B2C3D',
        7,
        3,
        {
          accountId: 'id-1',
          phoneNumber: '+254711000111',
          sessionId: 'session-1',
          attemptKey: 'attempt-key',
        },
      ],
    ]);
  });

  it('answers a Customer ID without an account like a wrong PIN, with the same hash work, even for the decoy PIN', async () => {
    const recordRightPin = jest.fn();
    const positions = [1, 2, 3];
    const confirmLock = jest.fn(async () => undefined);
    const repository = fakeRepository({
      reservePinAttempt: async () => reserved(null, positions.shift()),
      recordRightPin,
      confirmLock,
    });
    const service = new AccountsService(...repository, vault, config, logger);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      await expect(service.verify('CFFFFFFFF', '00000', attempt)).resolves.toEqual({
        kind: 'wrong',
        attemptsLeft: 2,
      });
      await expect(service.verify('CFFFFFFFF', '24680', attempt)).resolves.toEqual({
        kind: 'wrong',
        attemptsLeft: 1,
      });
      await expect(service.verify('CFFFFFFFF', '24680', attempt)).resolves.toEqual({
        kind: 'locked',
        minutes: 15,
        justNow: true,
      });
      expect(scrypt).toHaveBeenCalledTimes(3);
    } finally {
      scrypt.mockRestore();
    }
    expect(recordRightPin).not.toHaveBeenCalled();
    // The attempt that took the last place was wrong: its lock is settled (no longer pending).
    expect(confirmLock).toHaveBeenCalledWith('CFFFFFFFF', 3);
  });

  it('waits while every place is taken by attempts being checked, then checks, or asks to try again', async () => {
    const sealed = await vault.seal('24680');
    const answers: PinAttempt[] = [
      { kind: 'pending' },
      { kind: 'pending' },
      reserved({ ...row, pinHash: sealed }),
    ];
    const reservePinAttempt = jest.fn(
      async (): Promise<PinAttempt> => answers.shift() ?? { kind: 'pending' },
    );
    const service = new AccountsService(
      ...fakeRepository({ reservePinAttempt, recordRightPin: async () => undefined }),
      vault,
      config,
      logger,
    );
    await expect(service.verify('C0A1B2C3D', '24680', attempt)).resolves.toEqual({
      kind: 'ok',
      firstName: 'Jane',
      language: 'sw',
      pinVersion: 1,
    });
    expect(reservePinAttempt).toHaveBeenCalledTimes(3);

    const hurried = new AccountsService(
      ...fakeRepository({ reservePinAttempt }),
      vault,
      Object.assign(new UssdConfig(), { ...config, HOP_TIMEOUT_MS: 100 }),
      logger,
    );
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      await expect(hurried.verify('C0A1B2C3D', '24680', attempt)).resolves.toEqual({ kind: 'busy' });
      expect(scrypt).not.toHaveBeenCalled();
    } finally {
      scrypt.mockRestore();
    }
  });

  it('refuses a locked Customer ID without hashing', async () => {
    const service = new AccountsService(
      ...fakeRepository({ reservePinAttempt: async () => ({ kind: 'locked', lockSecondsLeft: 61 }) }),
      vault,
      config,
      logger,
    );
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      await expect(service.verify('C0A1B2C3D', '24680', attempt)).resolves.toEqual({
        kind: 'locked',
        minutes: 2,
        justNow: false,
      });
      expect(scrypt).not.toHaveBeenCalled();
    } finally {
      scrypt.mockRestore();
    }
  });

  it('shows the account phone masked', async () => {
    const service = new AccountsService(
      ...fakeRepository({ findByCustomerId: async () => ({ ...row, phoneNumber: '+254712345678' }) }),
      vault,
      config,
      logger,
    );
    await expect(service.details('C0A1B2C3D')).resolves.toMatchObject({ phoneNumber: '+254*******78' });
  });
});
