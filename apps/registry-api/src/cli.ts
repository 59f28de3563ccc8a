import 'reflect-metadata';
import { parseArgs } from 'node:util';
import { ConfigValidationError, readVariable } from '@dmrv/config';
import { createDataSource, runMigrations } from './database/data-source';
import { refreshRollups } from './database/rollups';
import { seedRegistry } from './database/seed';
import { createClient, listClients, revokeClient } from './cli/clients';
import { exportCommand } from './cli/export-command';
import { importCommand } from './cli/import-command';
import { signingKeyCommand } from './cli/signing-key';
import { verifyCommand, verifyExportCommand } from './cli/verify';

// Operator commands. Everything goes to stderr except the command's result, so `--json` output can be piped.

const USAGE = `usage: node dist/cli.js <command>
  migrate                                   apply pending migrations to DATABASE_URL
  seed --households N [--seed S] [--batch B] generate deterministic data (empty database), then refresh
  refresh                                   refresh rollups and quarterly claims after loading records
  import <dir|file…> [--report FILE] [--max-errors N] [--quiet] [--staging copy|insert] [--timeout SECONDS]
                                            load data files (docs/data-formats.md): all rows or none
  export <dir> [--format csv|ndjson]        write every entity in the formats import reads, and manifest.json
                                            (each file's SHA-256 and rows, signed with SIGNING_KEY)
  verify-export <dir> --jwks FILE [--at TIME]
                                            check an export directory against its signed manifest
  clients create --name NAME [--json]       create an API client and print its secret once
  clients list [--json]                     list API clients
  clients revoke <client_id>                revoke an API client (serving APIs refuse it within milliseconds)
  signing-key generate                      print a new Ed25519 signing key (PEM) for SIGNING_KEY_FILE
  signing-key retire <old.pem> [--at TIME] [--into FILE]
                                            add the old key, stopped signing at TIME (default now), to the
                                            retired keys (SIGNING_RETIRED_KEYS_FILE), or print them
  verify <saved answer> --jwks FILE [--url URL] [--method M] [--at TIME]
                                            check an answer saved with curl -i against a saved key set
                                            (docs/security.md); exit 0 verified, 1 not
`;

class UsageError extends Error {}

function databaseUrl(): string {
  let url: string | undefined;
  try {
    url = readVariable('registry-api', 'DATABASE_URL');
  } catch (error) {
    throw error instanceof ConfigValidationError ? new UsageError(error.message) : error;
  }
  if (!url || !/^postgres(ql)?:\/\//.test(url))
    throw new UsageError('DATABASE_URL (or DATABASE_URL_FILE) must be set to a postgres:// URL');
  return url;
}

function positiveInteger(value: string | undefined, name: string, fallback?: number): number {
  if (value === undefined) {
    if (fallback === undefined) throw new UsageError(`--${name} is required`);
    return fallback;
  }
  if (!/^\d+$/.test(value) || Number(value) < 1) throw new UsageError(`--${name} must be a positive integer`);
  return Number(value);
}

function progressReporter(): (done: number, total: number, stage: string) => void {
  const started = Date.now();
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  return (done, total, stage) => {
    const ratio = total === 0 ? 1 : done / total;
    const width = 30;
    const filled = Math.round(ratio * width);
    const line = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${done}/${total} ${stage} ${((Date.now() - started) / 1000).toFixed(1)}s`;
    if (tty) {
      process.stderr.write(`\r${line}${stage === 'done' ? '\n' : ''}`);
    } else {
      const tenth = Math.floor(ratio * 10);
      if (tenth !== lastTenth || stage !== 'households') process.stderr.write(`${line}\n`);
      lastTenth = tenth;
    }
  };
}

async function withDataSource<T>(work: (dataSource: import('typeorm').DataSource) => Promise<T>): Promise<T> {
  const dataSource = await createDataSource(databaseUrl(), 2).initialize();
  try {
    return await work(dataSource);
  } finally {
    await dataSource.destroy();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'migrate': {
      const applied = await runMigrations(databaseUrl());
      process.stderr.write(
        applied.length > 0 ? `applied: ${applied.join(', ')}\n` : 'schema is up to date\n',
      );
      return 0;
    }
    case 'seed': {
      const { values } = parseArgs({
        args: rest,
        options: { households: { type: 'string' }, seed: { type: 'string' }, batch: { type: 'string' } },
      });
      const households = positiveInteger(values.households, 'households');
      const seed = values.seed === undefined ? 1 : Number.parseInt(values.seed, 10);
      if (!Number.isSafeInteger(seed)) throw new UsageError('--seed must be an integer');
      const batchSize = positiveInteger(values.batch, 'batch', 10_000);
      const summary = await withDataSource((dataSource) =>
        seedRegistry((sql, params) => dataSource.query(sql, params), {
          households,
          seed,
          batchSize,
          onProgress: progressReporter(),
        }),
      );
      process.stderr.write(
        `seeded ${summary.households} households in ${summary.projects} projects, ${summary.creditBlocks} credit blocks\n`,
      );
      return 0;
    }
    case 'refresh': {
      await withDataSource((dataSource) => refreshRollups((sql, params) => dataSource.query(sql, params)));
      process.stderr.write('rollups and claims refreshed\n');
      return 0;
    }
    case 'clients':
      return clients(rest);
    case 'import':
      return importCommand(rest, { databaseUrl, usageError: (message) => new UsageError(message) });
    case 'export':
      return exportCommand(rest, { databaseUrl, usageError: (message) => new UsageError(message) });
    case 'signing-key':
      return signingKeyCommand(rest, { usageError: (message) => new UsageError(message) });
    case 'verify':
      return verifyCommand(rest, { usageError: (message) => new UsageError(message) });
    case 'verify-export':
      return verifyExportCommand(rest, { usageError: (message) => new UsageError(message) });
    default:
      throw new UsageError(command ? `unknown command ${command}` : 'no command given');
  }
}

async function clients(argv: string[]): Promise<number> {
  const [action, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  switch (action) {
    case 'create': {
      const name = values.name?.trim();
      if (!name) throw new UsageError('--name is required');
      const created = await withDataSource((dataSource) => createClient(dataSource, name));
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ client_id: created.clientId, secret: created.secret })}\n`);
      } else {
        process.stdout.write(
          `client_id:  ${created.clientId}\nsecret:     ${created.secret}\nbearer key: ${created.bearerKey}\n` +
            'The secret is shown once and cannot be recovered. Use HTTP Basic client_id:secret or Authorization: Bearer <bearer key>.\n',
        );
      }
      return 0;
    }
    case 'list': {
      const list = await withDataSource((dataSource) => listClients(dataSource));
      if (values.json) {
        process.stdout.write(`${JSON.stringify(list)}\n`);
      } else {
        for (const client of list) {
          process.stdout.write(
            `${client.client_id}\t${client.revoked_at ? `revoked ${client.revoked_at}` : 'active'}\t${client.created_at}\t${client.name}\n`,
          );
        }
      }
      return 0;
    }
    case 'revoke': {
      const clientId = positionals[0];
      if (!clientId) throw new UsageError('clients revoke needs a client_id');
      const revoked = await withDataSource((dataSource) => revokeClient(dataSource, clientId));
      process.stderr.write(revoked ? `revoked ${clientId}\n` : `no active client ${clientId}\n`);
      return revoked ? 0 : 1;
    }
    default:
      throw new UsageError(
        action ? `unknown clients action ${action}` : 'clients needs create, list or revoke',
      );
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (
      error instanceof UsageError ||
      (error instanceof Error &&
        'code' in error &&
        String((error as { code: unknown }).code).startsWith('ERR_PARSE_ARGS'))
    ) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
      process.exit(2);
    }
    // Driver errors can quote the connection string; keep any password out of the terminal and CI logs.
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`registry-api: ${message.replace(/\/\/[^@/\s]+@/g, '//[redacted]@')}\n`);
    process.exit(1);
  },
);
