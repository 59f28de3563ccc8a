import crypto, { randomBytes } from 'node:crypto';
import type { PinoLogger } from '@dmrv/logging';
import { UssdConfig } from '../config/ussd.config';
import { AccountRow, AccountsRepository, CustomerIdTakenError, NewAccount } from './accounts.repository';
import { AccountsService } from './accounts.service';
import { PinVault } from './pin-vault';

const logger = { info: jest.fn(), warn: jest.fn() } as unknown as PinoLogger;
const config = Object.assign(new UssdConfig(), { PIN_MAX_ATTEMPTS: 3, PIN_LOCKOUT_SECONDS: 900 });

function fakeRepository(overrides: Partial<AccountsRepository>): AccountsRepository {
  return overrides as AccountsRepository;
}

const row: AccountRow = {
  id: 'id-1',
  customerId: 'C0A1B2C3D',
  fullName: 'Jane Smith',
  email: null,
  phoneNumber: '+254700000001',
  pinHash: '',
  pinKeyId: 'k2',
  lockSecondsLeft: 0,
};

describe('AccountsService', () => {
  const retired = { id: 'k1', key: randomBytes(32) };
  const vault = new PinVault({ id: 'k2', key: randomBytes(32) }, [retired]);

  it('draws another Customer ID when the first is taken', async () => {
    const tried: string[] = [];
    const repository = fakeRepository({
      create: async (account: NewAccount) => {
        tried.push(account.customerId);
        if (tried.length === 1) throw new CustomerIdTakenError(account.customerId);
      },
    });
    const service = new AccountsService(repository, vault, config, logger);
    const customerId = await service.create({ phoneNumber: '+254700000001', fullName: 'Jane', email: null, heldPin: vault.hold('24680') });
    expect(tried).toHaveLength(2);
    expect(customerId).toBe(tried[1]);
    expect(customerId).toMatch(/^C[0-9A-F]{8}$/);
  });

  it('hashes a new PIN once, when the account is written, however many Customer IDs it takes', async () => {
    const written: NewAccount[] = [];
    const repository = fakeRepository({
      create: async (account: NewAccount) => {
        written.push(account);
        if (written.length === 1) throw new CustomerIdTakenError(account.customerId);
      },
    });
    const service = new AccountsService(repository, vault, config, logger);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      const heldPin = service.hold('24680');
      await expect(service.matches('24680', heldPin)).resolves.toBe(true);
      await expect(service.matches('13579', heldPin)).resolves.toBe(false);
      expect(scrypt).not.toHaveBeenCalled();
      await service.create({ phoneNumber: '+254700000001', fullName: 'Jane', email: null, heldPin });
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }
    expect(written[1]!.pinHash).toBe(written[0]!.pinHash);
    expect(written[1]).toMatchObject({ pinKeyId: 'k2' });
    expect(JSON.stringify(written)).not.toContain('24680');
    await expect(vault.verify('24680', written[1]!.pinHash)).resolves.toBe(true);
  });

  it('hashes a changed PIN once, when it replaces the old one', async () => {
    const replaced: Array<[string, string]> = [];
    const repository = fakeRepository({
      findByCustomerId: async () => ({ ...row, pinHash: 'unused' }),
      replacePin: async (_id: string, pinHash: string, keyId: string) => void replaced.push([pinHash, keyId]),
    });
    const service = new AccountsService(repository, vault, config, logger);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      await service.replacePin('C0A1B2C3D', service.hold('97531'));
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }
    expect(replaced[0]![1]).toBe('k2');
    await expect(vault.verify('97531', replaced[0]![0])).resolves.toBe(true);
  });

  it('rewraps a PIN sealed under a retired key when it is verified', async () => {
    const oldSeal = await new PinVault(retired).seal('24680');
    const sealedRow: AccountRow = { ...row, pinHash: oldSeal, pinKeyId: 'k1' };
    const replaced: Array<[string, string]> = [];
    const repository = fakeRepository({
      findByCustomerId: async () => sealedRow,
      recordSuccess: async () => undefined,
      replacePin: async (_id: string, pinHash: string, keyId: string) => void replaced.push([pinHash, keyId]),
    });
    const service = new AccountsService(repository, vault, config, logger);
    await expect(service.verify('C0A1B2C3D', '24680')).resolves.toEqual({ kind: 'ok', firstName: 'Jane' });
    expect(replaced).toHaveLength(1);
    expect(replaced[0]![1]).toBe('k2');
    await expect(vault.verify('24680', replaced[0]![0])).resolves.toBe(true);
  });

  it('answers an unknown account without touching any row', async () => {
    const service = new AccountsService(fakeRepository({ findByCustomerId: async () => null }), vault, config, logger);
    await expect(service.verify('CFFFFFFFF', '24680')).resolves.toEqual({ kind: 'unknown' });
  });
});
