import { randomBytes } from 'node:crypto';
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
    const customerId = await service.create({ phoneNumber: '+254700000001', fullName: 'Jane', email: null, sealedPin: await vault.seal('24680') });
    expect(tried).toHaveLength(2);
    expect(customerId).toBe(tried[1]);
    expect(customerId).toMatch(/^C[0-9A-F]{8}$/);
  });

  it('rewraps a PIN sealed under a retired key when it is verified', async () => {
    const oldSeal = await new PinVault(retired).seal('24680');
    const row: AccountRow = {
      id: 'id-1',
      customerId: 'C0A1B2C3D',
      fullName: 'Jane Smith',
      email: null,
      phoneNumber: '+254700000001',
      pinHash: oldSeal,
      pinKeyId: 'k1',
      lockSecondsLeft: 0,
    };
    const replaced: Array<[string, string]> = [];
    const repository = fakeRepository({
      findByCustomerId: async () => row,
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
