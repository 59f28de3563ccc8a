import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'pg';
import { deleteKeysWithPrefix, FaultMode, FaultProxy, startFaultProxy } from '@dmrv/testing';
import { Janitor } from '../harness/janitor';
import { assertBuilt, repoPath } from '../harness/paths';
import { ManagedProcess, runToCompletion } from '../harness/processes';
import { createDatabase, ResourceSettings } from '../harness/resources';
import { baseEnv, SERVICE_BUILDS } from '../suites/services';
import { AnswerTally, KINDS, SERVICES, ServiceName } from './answers';
import { answersTable, FaultWindow, flatness, plotSvg, Sample } from './report';
import {
  emptyLedger,
  protocolDashboard,
  registryClient,
  RegistrySyncResult,
  ussdSubscriber,
  UssdLedger,
} from './traffic';

const USAGE = `npm run soak -- --minutes N [--out DIR] [--fault-seconds S]

Runs the three services on the machine's PostgreSQL and Redis for N minutes under mixed traffic while a schedule
cuts (TCP reset), stalls (silently dead connections) and slows each dependency (PostgreSQL, Redis, the chain node)
in turn, then checks the ledger. Writes report.md, report.json and plot.svg to DIR (default bench/soak-results/<time>).
Exit 0 when every check holds, 1 when one does not, 2 on a bad option.`;

/** The committed example key (.env.example): the soak never needs a real secret. */
const EXAMPLE_PIN_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const SAMPLE_EVERY_MS = 5_000;
const QUIET_BETWEEN_FAULTS_MS = 25_000;
const USSD_SUBSCRIBERS = 6;
const REGISTRY_CLIENTS = 3;
const DASHBOARDS = 4;
const RECORD_COLLECTIONS = [
  'devices/status',
  'credits/cancelled',
  'credits/transferred',
  'credits/retired',
  'claims/fuel-delivery',
  'claims/emission-reduction',
  'claims/household-onboarding',
] as const;
const AGGREGATES = ['households/stats', 'fuel-usage'] as const;
const DASHBOARD_ROUTES = [
  '/ixo/token/params',
  '/ixo/entity/params',
  '/ixo/claims/collections',
  '/ixo/claims/claims?pagination.limit=50',
] as const;

interface Options {
  minutes: number;
  out: string;
  faultSeconds: number;
}

function parseOptions(argv: string[]): Options {
  const options: Options = {
    minutes: 10,
    out: repoPath('bench', 'soak-results', new Date().toISOString().replace(/[:.]/g, '-')),
    faultSeconds: 20,
  };
  for (let at = 0; at < argv.length; at += 1) {
    const flag = argv[at];
    const value = argv[at + 1];
    if (flag === '--help') {
      console.log(USAGE);
      process.exit(0);
    }
    if (value === undefined) throw new Error(`${flag} needs a value`);
    at += 1;
    if (flag === '--minutes') options.minutes = Number(value);
    else if (flag === '--out') options.out = value;
    else if (flag === '--fault-seconds') options.faultSeconds = Number(value);
    else throw new Error(`unknown option ${flag}`);
  }
  if (!Number.isFinite(options.minutes) || options.minutes < 2 || options.minutes > 24 * 60)
    throw new Error('--minutes must be between 2 and 1440');
  if (!Number.isInteger(options.faultSeconds) || options.faultSeconds < 5 || options.faultSeconds > 300)
    throw new Error('--fault-seconds must be a whole number between 5 and 300');
  return options;
}

function viaProxy(url: string, proxy: FaultProxy): string {
  const parsed = new URL(url);
  parsed.hostname = proxy.host;
  parsed.port = String(proxy.port);
  return parsed.toString();
}

function processFigures(pid: number): { rssMiB: number; fds: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { rssMiB: Math.round(rssKb / 1024), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return { rssMiB: 0, fds: 0 };
  }
}

async function startService(
  janitor: Janitor,
  logDir: string,
  name: string,
  script: string,
  env: Record<string, string>,
): Promise<{ process: ManagedProcess; baseUrl: string }> {
  const process = ManagedProcess.start(
    { name, script, env: baseEnv({ ...env, PORT: '0', HOST: '127.0.0.1' }), logDir },
    janitor,
  );
  const baseUrl = (await process.waitForAnnouncement()).listening;
  await process.waitForHttp(`${baseUrl}/health`);
  return { process, baseUrl };
}

async function query<T>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql)).rows as T[];
  } finally {
    await client.end();
  }
}

interface LedgerCheck {
  accountsAcknowledged: number;
  accountsMissing: string[];
  accountsWrong: string[];
  accountsUnacknowledged: number;
  ordersAcknowledged: number;
  ordersMissing: string[];
  ordersWrong: string[];
  ordersDuplicated: string[];
  ordersPhantom: string[];
  ordersUnacknowledged: number;
  foreignData: string[];
  holds: boolean;
}

/** Every account and order a subscriber was told about exists once, as told; no order exists that nobody sent. */
async function checkLedger(ussdDatabaseUrl: string, ledger: UssdLedger): Promise<LedgerCheck> {
  const accounts = await query<{ customer_id: string; full_name: string; phone_number: string }>(
    ussdDatabaseUrl,
    'SELECT a.customer_id, a.full_name, p.phone_number FROM ussd_accounts a JOIN ussd_phones p ON p.id = a.phone_id',
  );
  const orders = await query<{
    id: string;
    delivery_point: string;
    phone_number: string;
    customer_id: string;
  }>(
    ussdDatabaseUrl,
    'SELECT o.id::text, o.delivery_point, o.phone_number, a.customer_id FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id',
  );
  const accountById = new Map(accounts.map((row) => [row.customer_id, row]));
  const accountsMissing: string[] = [];
  const accountsWrong: string[] = [];
  for (const [customerId, told] of ledger.accounts) {
    const row = accountById.get(customerId);
    if (!row) accountsMissing.push(customerId);
    else if (row.full_name !== told.name || row.phone_number !== told.phone) accountsWrong.push(customerId);
  }
  const byDeliveryPoint = new Map<string, typeof orders>();
  for (const row of orders)
    byDeliveryPoint.set(row.delivery_point, [...(byDeliveryPoint.get(row.delivery_point) ?? []), row]);
  const ordersMissing: string[] = [];
  const ordersWrong: string[] = [];
  for (const [orderNumber, told] of ledger.orders) {
    const id = String(Number(orderNumber.slice(1)));
    const row = orders.find((candidate) => candidate.id === id);
    if (!row) ordersMissing.push(orderNumber);
    else if (
      row.delivery_point !== told.deliveryPoint ||
      row.customer_id !== told.customerId ||
      row.phone_number !== told.phone
    )
      ordersWrong.push(orderNumber);
  }
  const ordersDuplicated = [...byDeliveryPoint].filter(([, rows]) => rows.length > 1).map(([point]) => point);
  const ordersPhantom = [...byDeliveryPoint.keys()].filter((point) => !ledger.confirmationsSent.has(point));
  const check = {
    accountsAcknowledged: ledger.accounts.size,
    accountsMissing,
    accountsWrong,
    accountsUnacknowledged: accounts.filter((row) => !ledger.accounts.has(row.customer_id)).length,
    ordersAcknowledged: ledger.orders.size,
    ordersMissing,
    ordersWrong,
    ordersDuplicated,
    ordersPhantom,
    ordersUnacknowledged: orders.length - ledger.orders.size,
    foreignData: ledger.foreignData,
  };
  const holds =
    accountsMissing.length + accountsWrong.length + ordersMissing.length + ordersWrong.length === 0 &&
    ordersDuplicated.length + ordersPhantom.length + ledger.foreignData.length === 0;
  return { ...check, holds };
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  assertBuilt([
    SERVICE_BUILDS.registry.main,
    SERVICE_BUILDS.registry.cli,
    SERVICE_BUILDS.ussd.main,
    SERVICE_BUILDS.ussd.cli,
    SERVICE_BUILDS.protocol.main,
    SERVICE_BUILDS.protocol.chainNode,
  ]);
  mkdirSync(options.out, { recursive: true });
  const logDir = join(options.out, 'logs');
  mkdirSync(logDir, { recursive: true });
  const janitor = new Janitor();
  const onSignal = (): void => void janitor.cleanAll().then(() => process.exit(130));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const tag = Date.now().toString(36);
  const settings: ResourceSettings = {
    pgAdminUrl: process.env.TEST_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    databasePrefix: `dmrv_soak_${tag}_`,
    redisPrefix: `dmrv_soak:${tag}:`,
  };
  const log = (line: string): void => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`);

  try {
    log('creating databases, migrating, seeding');
    const registryDb = await createDatabase(settings, 'registry', janitor);
    const ussdDb = await createDatabase(settings, 'ussd', janitor);
    janitor.defer('delete the run’s Redis keys', async () => {
      await deleteKeysWithPrefix(settings.redisUrl, settings.redisPrefix);
    });
    const cliEnv = (url: string) => baseEnv({ DATABASE_URL: url, PIN_ENCRYPTION_KEY: EXAMPLE_PIN_KEY });
    await runToCompletion(SERVICE_BUILDS.registry.cli, ['migrate'], cliEnv(registryDb), janitor);
    await runToCompletion(
      SERVICE_BUILDS.registry.cli,
      ['seed', '--households', '2000', '--seed', '42'],
      cliEnv(registryDb),
      janitor,
    );
    const credentials: string[] = [];
    for (let client = 0; client < REGISTRY_CLIENTS; client += 1) {
      const printed = await runToCompletion(
        SERVICE_BUILDS.registry.cli,
        ['clients', 'create', '--name', `soak ${client}`, '--json'],
        cliEnv(registryDb),
        janitor,
      );
      const { client_id: id, secret } = JSON.parse(printed.trim().split('\n').at(-1)!) as {
        client_id: string;
        secret: string;
      };
      credentials.push(`Bearer ${id}.${secret}`);
    }
    await runToCompletion(SERVICE_BUILDS.ussd.cli, ['migrate'], cliEnv(ussdDb), janitor);

    log('starting the chain node, the fault proxies and the three services');
    const chainNode = ManagedProcess.start(
      {
        name: 'local-chain-node',
        script: SERVICE_BUILDS.protocol.chainNode,
        env: baseEnv({ CHAIN_NODE_PORT: '0' }),
        logDir,
      },
      janitor,
    );
    const [, chainAddress] = await chainNode.waitForOutput(/"listening":"([^"]+)"/);
    const chainPort = Number(chainAddress!.split(':').at(-1));
    const postgres = await startFaultProxy({ port: Number(new URL(settings.pgAdminUrl).port || 5432) });
    const redis = await startFaultProxy({ port: Number(new URL(settings.redisUrl).port || 6379) });
    const chain = await startFaultProxy({ port: chainPort });
    for (const proxy of [postgres, redis, chain]) janitor.defer('close a fault proxy', () => proxy.close());
    const proxies: Record<string, FaultProxy> = { postgres, redis, 'chain node': chain };

    const registry = await startService(janitor, logDir, 'registry-api', SERVICE_BUILDS.registry.main, {
      DATABASE_URL: viaProxy(registryDb, postgres),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    const ussd = await startService(janitor, logDir, 'ussd-gateway', SERVICE_BUILDS.ussd.main, {
      DATABASE_URL: viaProxy(ussdDb, postgres),
      REDIS_URL: viaProxy(settings.redisUrl, redis),
      REDIS_KEY_PREFIX: settings.redisPrefix,
      PIN_ENCRYPTION_KEY: EXAMPLE_PIN_KEY,
      RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1/32,::1/128',
      // The soak's subscribers press a key every 100 ms, far more often than a person can; the per-phone limit is
      // about people, and the per-session limit (which a session of ten hops stays under) stays at its default.
      RATE_LIMIT_PER_PHONE: '100000',
      // No aggregator posts session-end notifications here; production (NODE_ENV) requires the endpoint set or off.
      EVENTS_ENABLED: 'false',
    });
    const protocol = await startService(janitor, logDir, 'protocol-gateway', SERVICE_BUILDS.protocol.main, {
      GRPC_UPSTREAM: `127.0.0.1:${chain.port}`,
    });
    const processes: Record<ServiceName, ManagedProcess> = {
      ussd: ussd.process,
      registry: registry.process,
      protocol: protocol.process,
    };

    const durationMs = options.minutes * 60_000;
    const warmUpMs = Math.min(60_000, durationMs * 0.1);
    const recoveryMs = Math.min(60_000, durationMs * 0.15);
    const started = Date.now();
    const elapsed = (): number => (Date.now() - started) / 1000;
    let running = true;
    const tally = new AnswerTally();
    const ledger = emptyLedger();
    const syncs: RegistrySyncResult[] = [];
    log(
      `load for ${options.minutes} min: ${USSD_SUBSCRIBERS} USSD subscribers, ${REGISTRY_CLIENTS} registry clients, ${DASHBOARDS} dashboards`,
    );

    const traffic = [
      ...Array.from({ length: USSD_SUBSCRIBERS }, (_, subscriber) =>
        ussdSubscriber({
          baseUrl: ussd.baseUrl,
          subscriber,
          running: () => running,
          tally,
          ledger,
          thinkMs: 100,
        }),
      ),
      ...credentials.map((authorization, client) =>
        registryClient({
          baseUrl: registry.baseUrl,
          authorization,
          collections: RECORD_COLLECTIONS,
          aggregates: AGGREGATES,
          running: () => running,
          tally,
          syncs,
          client,
          pauseMs: 1_000,
        }),
      ),
      ...Array.from({ length: DASHBOARDS }, () =>
        protocolDashboard({
          baseUrl: protocol.baseUrl,
          routes: DASHBOARD_ROUTES,
          running: () => running,
          tally,
          pauseMs: 250,
        }),
      ),
    ];

    const samples: Sample[] = [];
    let previous = tally.snapshot();
    let previousAt = elapsed();
    const sample = (): void => {
      const now = elapsed();
      const current = tally.snapshot();
      const seconds = Math.max(0.001, now - previousAt);
      const rates = {} as Sample['rates'];
      const rssMiB = {} as Sample['rssMiB'];
      const fds = {} as Sample['fds'];
      for (const service of SERVICES) {
        rates[service] = {} as Sample['rates'][ServiceName];
        for (const kind of KINDS)
          rates[service][kind] = (current[service][kind] - previous[service][kind]) / seconds;
        const figures = processFigures(processes[service].pid);
        rssMiB[service] = figures.rssMiB;
        fds[service] = figures.fds;
      }
      samples.push({ at: Math.round(now), rates, rssMiB, fds });
      previous = current;
      previousAt = now;
    };
    const sampler = setInterval(sample, SAMPLE_EVERY_MS);

    const faults: FaultWindow[] = [];
    const schedule: { dependency: string; mode: FaultMode; name: string }[] = [];
    for (const mode of [
      { mode: { kind: 'reset' } as FaultMode, name: 'cut' },
      { mode: { kind: 'stale' } as FaultMode, name: 'silently dead' },
      { mode: { kind: 'delay', ms: 400 } as FaultMode, name: 'slow (400 ms)' },
    ]) {
      for (const dependency of Object.keys(proxies)) schedule.push({ dependency, ...mode });
    }
    await sleep(warmUpMs);
    for (let step = 0; elapsed() * 1000 + options.faultSeconds * 1000 + recoveryMs < durationMs; step += 1) {
      const fault = schedule[step % schedule.length]!;
      const from = elapsed();
      log(`fault: ${fault.dependency} ${fault.name} for ${options.faultSeconds} s`);
      proxies[fault.dependency]!.setMode(fault.mode);
      await sleep(options.faultSeconds * 1000);
      proxies[fault.dependency]!.setMode({ kind: 'pass' });
      faults.push({ dependency: fault.dependency, mode: fault.name, from, to: elapsed() });
      const quiet = Math.min(QUIET_BETWEEN_FAULTS_MS, durationMs - elapsed() * 1000 - recoveryMs);
      if (quiet > 0) await sleep(quiet);
    }
    const left = durationMs - elapsed() * 1000;
    if (left > 0) await sleep(left);
    running = false;
    await Promise.all(traffic);
    clearInterval(sampler);
    log('load stopped; checking the ledger');

    const crashed = SERVICES.filter((service) => processes[service].hasExited).map((service) =>
      processes[service].describeExit(),
    );
    const healthy: Record<string, number> = {};
    for (const [service, baseUrl] of [
      ['ussd', ussd.baseUrl],
      ['registry', registry.baseUrl],
      ['protocol', protocol.baseUrl],
    ] as const) {
      healthy[service] = await fetch(`${baseUrl}/health/ready`, { signal: AbortSignal.timeout(10_000) })
        .then((response) => response.status)
        .catch(() => 0);
    }
    const ledgerCheck = await checkLedger(ussdDb, ledger);
    const totals = tally.snapshot();
    const undocumented = SERVICES.reduce((sum, service) => sum + totals[service].undocumented, 0);
    const incompleteSyncs = syncs.filter((sync) => !sync.complete);
    const flat = flatness(samples);
    const passed =
      crashed.length === 0 &&
      Object.values(healthy).every((status) => status === 200) &&
      ledgerCheck.holds &&
      undocumented === 0 &&
      incompleteSyncs.length === 0 &&
      syncs.length > 0 &&
      flat.every((row) => row.flat);

    const report = {
      startedAt: new Date(started).toISOString(),
      minutes: options.minutes,
      node: process.version,
      faultSeconds: options.faultSeconds,
      load: { ussdSubscribers: USSD_SUBSCRIBERS, registryClients: REGISTRY_CLIENTS, dashboards: DASHBOARDS },
      passed,
      crashed,
      readinessAfter: healthy,
      totals,
      undocumentedSamples: tally.undocumentedSamples,
      ledger: ledgerCheck,
      registrySyncs: {
        completed: syncs.length,
        incomplete: incompleteSyncs,
        rows: syncs.reduce((sum, sync) => sum + sync.rows, 0),
        pages: syncs.reduce((sum, sync) => sum + sync.pages, 0),
      },
      flatness: flat,
      faults,
      samples,
    };
    writeFileSync(join(options.out, 'report.json'), `${JSON.stringify(report, null, 2)}\n`);
    writeFileSync(join(options.out, 'plot.svg'), plotSvg(samples, faults));
    const markdown = [
      `Soak run ${report.startedAt} · ${options.minutes} min · Node ${process.version} · ${faults.length} fault windows of ${options.faultSeconds} s · ${passed ? 'PASSED' : 'FAILED'}`,
      '',
      answersTable(totals),
      '',
      `Ledger: ${ledgerCheck.accountsAcknowledged} accounts and ${ledgerCheck.ordersAcknowledged} orders acknowledged; missing ${ledgerCheck.accountsMissing.length + ledgerCheck.ordersMissing.length}, wrong ${ledgerCheck.accountsWrong.length + ledgerCheck.ordersWrong.length}, orders duplicated ${ledgerCheck.ordersDuplicated.length}, phantom ${ledgerCheck.ordersPhantom.length}, screens with another subscriber's data ${ledgerCheck.foreignData.length}; written but not acknowledged (the answer was lost in a fault): ${ledgerCheck.accountsUnacknowledged} accounts, ${ledgerCheck.ordersUnacknowledged} orders.`,
      '',
      `Registry syncs: ${syncs.length} complete page sequences (${report.registrySyncs.pages} pages, ${report.registrySyncs.rows} rows), ${incompleteSyncs.length} with a gap or a duplicate.`,
      '',
      '| Service | RSS start → end (MiB) | open fds start → end | flat |',
      '|---|--:|--:|---|',
      ...flat.map(
        (row) =>
          `| ${row.service} | ${row.rssStartMiB} → ${row.rssEndMiB} | ${row.fdsStart} → ${row.fdsEnd} | ${row.flat ? 'yes' : 'NO'} |`,
      ),
      '',
      `Readiness after the run: ${Object.entries(healthy)
        .map(([service, status]) => `${service} ${status}`)
        .join(', ')}${crashed.length ? `; crashed: ${crashed.join('; ')}` : ''}.`,
      ...(tally.undocumentedSamples.length
        ? ['', 'Undocumented answers (first 20):', ...tally.undocumentedSamples.map((line) => `- ${line}`)]
        : []),
    ].join('\n');
    writeFileSync(join(options.out, 'report.md'), `${markdown}\n`);
    console.log(markdown);
    log(`report, JSON and plot in ${options.out}`);
    return passed ? 0 : 1;
  } finally {
    const failures = await janitor.cleanAll();
    for (const failure of failures) console.error(`cleanup: ${failure}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error((error as Error).message);
    process.exit((error as Error).message.includes('--') ? 2 : 1);
  },
);
