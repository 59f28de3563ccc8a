import { IsDefined, IsString, Matches } from 'class-validator';
import { DataSource } from 'typeorm';
import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { AccountsRepository } from './accounts/accounts.repository';
import { PhonesRepository } from './accounts/phones.repository';
import { PinGuardsRepository } from './accounts/pin-guards.repository';
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

export const USAGE = `usage: node dist/cli.js <command>
  migrate       apply pending database migrations (DATABASE_URL)
  rewrap-pins   re-encrypt PINs sealed under a retired key with PIN_ENCRYPTION_KEY (after a rotation)
`;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(line: string): void;
  err(text: string): void;
}

const silentLogger = { info: () => undefined, warn: () => undefined } as unknown as ConstructorParameters<
  typeof AccountsService
>[5];

async function rewrapPins(io: CliIo): Promise<void> {
  const config = loadConfig('ussd-gateway', UssdConfig, io.env);
  const dataSource = new DataSource(dataSourceOptions(config.DATABASE_URL, 1));
  await dataSource.initialize();
  try {
    const service = new AccountsService(
      new AccountsRepository(dataSource),
      new PinGuardsRepository(dataSource),
      new PhonesRepository(dataSource),
      pinVaultFromConfig(config),
      config,
      silentLogger,
    );
    io.out(`rewrapped ${await service.rewrapAll()} PIN(s) under key ${config.PIN_ENCRYPTION_KEY_ID}`);
  } finally {
    await dataSource.destroy();
  }
}

/** Runs one command; resolves to the process exit code (0 done, 1 failed, 2 usage). */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  const [command] = args;
  try {
    if (command === 'migrate') {
      const { DATABASE_URL } = loadConfig('ussd-gateway migrate', MigrateConfig, io.env);
      const applied = await runMigrations(DATABASE_URL);
      io.out(applied.length === 0 ? 'migrations: up to date' : `migrations applied: ${applied.join(', ')}`);
      return 0;
    }
    if (command === 'rewrap-pins') {
      await rewrapPins(io);
      return 0;
    }
    io.err(USAGE);
    return 2;
  } catch (error) {
    // Driver errors may quote a connection string with its password; configuration errors never carry values.
    const message =
      error instanceof ConfigValidationError
        ? error.message
        : `${command} failed: ${(error instanceof Error ? error.message : String(error)).replace(/\/\/[^@/\s]+@/g, '//[redacted]@')}`;
    io.err(`${message}\n`);
    return 1;
  }
}

if (require.main === module) {
  void runCli(process.argv.slice(2), {
    env: process.env,
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (text) => void process.stderr.write(text),
  }).then((code) => {
    process.exitCode = code;
  });
}
