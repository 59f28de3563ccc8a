import { IsDefined, IsString, Matches } from 'class-validator';
import { DataSource } from 'typeorm';
import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { AccountsRepository } from './accounts/accounts.repository';
import { AccountsService } from './accounts/accounts.service';
import { pinVaultFromConfig } from './accounts/pin-vault';
import { UssdConfig } from './config/ussd.config';
import { dataSourceOptions } from './database/data-source';
import { runMigrations } from './database/migrate';

class MigrateConfig {
  @IsDefined({ message: 'is required: postgres://user:password@host:5432/database' })
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL!: string;
}

const USAGE = `usage: node dist/cli.js <command>
  migrate       apply pending database migrations (DATABASE_URL)
  rewrap-pins   re-encrypt PINs sealed under a retired key with PIN_ENCRYPTION_KEY (after a rotation)
`;

const out = (line: string): void => void process.stdout.write(`${line}\n`);

async function rewrapPins(): Promise<void> {
  const config = loadConfig('ussd-gateway', UssdConfig, process.env);
  const dataSource = new DataSource(dataSourceOptions(config.DATABASE_URL, 1));
  await dataSource.initialize();
  try {
    const silent = { info: () => undefined, warn: () => undefined } as never;
    const service = new AccountsService(new AccountsRepository(dataSource), pinVaultFromConfig(config), config, silent);
    out(`rewrapped ${await service.rewrapAll()} PIN(s) under key ${config.PIN_ENCRYPTION_KEY_ID}`);
  } finally {
    await dataSource.destroy();
  }
}

async function main(command: string | undefined): Promise<void> {
  if (command === 'migrate') {
    const { DATABASE_URL } = loadConfig('ussd-gateway migrate', MigrateConfig, process.env);
    const applied = await runMigrations(DATABASE_URL);
    out(applied.length === 0 ? 'migrations: up to date' : `migrations applied: ${applied.join(', ')}`);
  } else if (command === 'rewrap-pins') {
    await rewrapPins();
  } else {
    process.stderr.write(USAGE);
    process.exitCode = 2;
  }
}

main(process.argv[2]).catch((error: unknown) => {
  // Driver errors may quote a connection string with its password; configuration errors never carry values.
  const message =
    error instanceof ConfigValidationError
      ? error.message
      : `failed: ${(error instanceof Error ? error.message : String(error)).replace(/\/\/[^@/\s]+@/g, '//[redacted]@')}`;
  process.stderr.write(`${message}\n`);
  process.exitCode = 1;
});
