import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import {
  announcement,
  firstJsonLine,
  ManagedProcess,
  runToCompletion,
  startProcess,
  stopProcess,
  waitForHealthy,
} from './processes';
import { settingsFromEnv, StackSettings } from './settings';

const ROOT = join(__dirname, '..', '..', '..');
const HEALTH_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;

interface Listening {
  url: string;
  metrics: string;
}

class LocalStack {
  private readonly databases: EmbeddedPostgres[] = [];
  private readonly processes: ManagedProcess[] = [];
  private stopping = false;

  constructor(private readonly settings: StackSettings) {}

  private baseEnv(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      LOG_LEVEL: this.settings.logLevel,
      LOG_PRETTY: process.stdout.isTTY ? 'true' : 'false',
    };
  }

  private async database(configured: string | undefined): Promise<string> {
    if (configured) return configured;
    if (this.stopping) throw new Error('the stack is stopping');
    const embedded = await spawnEmbeddedPostgres();
    if (this.stopping) {
      await embedded.stop();
      throw new Error('the stack is stopping');
    }
    this.databases.push(embedded);
    return embedded.url;
  }

  private start(name: string, script: string, env: NodeJS.ProcessEnv): ManagedProcess {
    // A line still starting when another failed starts nothing more: stop() only stops what it knows of.
    if (this.stopping) throw new Error('the stack is stopping');
    const managed = startProcess(name, [script], env, ROOT);
    this.processes.push(managed);
    void managed.exited.then((code) => {
      if (!this.stopping) {
        process.stderr.write(`\n${name} exited unexpectedly (code ${code}); stopping the stack\n`);
        void this.stop(1);
      }
    });
    return managed;
  }

  async run(): Promise<void> {
    // Three independent lines, run at once: the registry's data must be there before the registry starts, each
    // database's migrations before its service, the chain node before the protocol gateway; nothing else waits.
    const [registry, ussdAt, protocol] = await Promise.all([
      this.registryLine().then(async (line) => ({ ...line, at: await this.listening(line.managed) })),
      this.ussdLine().then((managed) => this.listening(managed)),
      this.protocolLine().then(async (line) => ({ ...line, at: await this.listening(line.managed) })),
    ]);
    const { client, at: registryAt } = registry;
    const { upstream, at: protocolAt } = protocol;

    const embedded = this.databases.length > 0 ? ' (embedded PostgreSQL)' : '';
    process.stdout.write(
      [
        '',
        'dMRV local stack is up:',
        `  registry-api       ${registryAt.url}/v1        docs: ${registryAt.url}/v1/api-docs${embedded}`,
        `                     API client (shown once): ${client.client_id}:${client.secret}`,
        `                     try: curl -H 'Authorization: Bearer ${client.client_id}.${client.secret}' ${registryAt.url}/v1/households/stats`,
        `                     answers signed with a development key made for this run: ${registryAt.url}/v1/jwks.json`,
        `  ussd-gateway       ${ussdAt.url}/api/ussd   sessions: ${this.settings.redisUrl ? 'Redis' : 'in memory'}`,
        `                     simulator (a handset in the browser): ${ussdAt.url}/simulator`,
        `  protocol-gateway   ${protocolAt.url}/ixo/token/params   upstream: ${upstream}`,
        `  metrics (Prometheus): registry ${registryAt.metrics}   ussd ${ussdAt.metrics}   protocol ${protocolAt.metrics}`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  }

  /** Registry: schema, a small deterministic data set and a development API client, then the service. */
  private async registryLine(): Promise<{
    managed: ManagedProcess;
    client: { client_id: string; secret: string };
  }> {
    const { host, ports, metricsPorts } = this.settings;
    const registryDb = await this.database(this.settings.registryDatabaseUrl);
    const registryCli = join('apps', 'registry-api', 'dist', 'cli.js');
    const registryEnv = { ...this.baseEnv(), DATABASE_URL: registryDb, DATABASE_POOL_SIZE: '4' };
    await runToCompletion('registry-api', [registryCli, 'migrate'], registryEnv, ROOT);
    if (!this.settings.registryDatabaseUrl) {
      await runToCompletion(
        'registry-api',
        [registryCli, 'seed', '--households', String(this.settings.seedHouseholds), '--seed', '42'],
        registryEnv,
        ROOT,
      );
    }
    const clientLine = await runToCompletion(
      'registry-api',
      [registryCli, 'clients', 'create', '--name', `local-dev-${Date.now()}`, '--json'],
      registryEnv,
      ROOT,
    );
    const client = JSON.parse(clientLine.trim().split('\n').pop() ?? '{}') as {
      client_id: string;
      secret: string;
    };
    // A development key for this run only: answers signed earlier no longer verify once the stack restarts.
    const signingKey = generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    const managed = this.start('registry-api', join('apps', 'registry-api', 'dist', 'main.js'), {
      ...registryEnv,
      SIGNING_KEY: signingKey,
      PORT: String(ports.registry),
      HOST: host,
      METRICS_PORT: String(metricsPorts.registry),
    });
    return { managed, client };
  }

  /** USSD: its schema, then the service. */
  private async ussdLine(): Promise<ManagedProcess> {
    const { host, ports, metricsPorts } = this.settings;
    const ussdDb = await this.database(this.settings.ussdDatabaseUrl);
    const ussdEnv: NodeJS.ProcessEnv = {
      ...this.baseEnv(),
      DATABASE_URL: ussdDb,
      DATABASE_POOL_SIZE: '4',
      PORT: String(ports.ussd),
      HOST: host,
      METRICS_PORT: String(metricsPorts.ussd),
      // A fresh key per run is safe only because the embedded database is fresh too.
      PIN_ENCRYPTION_KEY: this.settings.pinEncryptionKey ?? this.requireKeyForExternalDatabase(),
      SIMULATOR_ENABLED: 'true',
      ...(this.settings.redisUrl ? { REDIS_URL: this.settings.redisUrl } : {}),
    };
    await runToCompletion(
      'ussd-gateway',
      [join('apps', 'ussd-gateway', 'dist', 'cli.js'), 'migrate'],
      ussdEnv,
      ROOT,
    );
    return this.start('ussd-gateway', join('apps', 'ussd-gateway', 'dist', 'main.js'), ussdEnv);
  }

  /** Protocol: the local chain node unless an upstream is given, then the gateway. */
  private async protocolLine(): Promise<{ managed: ManagedProcess; upstream: string }> {
    const { host, ports, metricsPorts } = this.settings;
    let upstream = this.settings.grpcUpstream;
    if (!upstream) {
      const node = this.start('local-chain-node', join('tools', 'local-chain-node', 'dist', 'main.js'), {
        ...this.baseEnv(),
        CHAIN_NODE_HOST: host,
        CHAIN_NODE_PORT: String(ports.chainNode),
      });
      upstream = (await firstJsonLine<{ listening: string }>(node, 30_000)).listening;
    }
    const managed = this.start('protocol-gateway', join('apps', 'protocol-gateway', 'dist', 'main.js'), {
      ...this.baseEnv(),
      PORT: String(ports.protocol),
      HOST: host,
      METRICS_PORT: String(metricsPorts.protocol),
      GRPC_UPSTREAM: upstream,
    });
    return { managed, upstream };
  }

  /** Where a service listens, as it says (ports configured as 0 are bound by the service itself), once healthy. */
  private async listening(managed: ManagedProcess): Promise<Listening> {
    const announced = await announcement(managed, HEALTH_TIMEOUT_MS);
    await waitForHealthy(
      `${announced.listening}/health`,
      HEALTH_TIMEOUT_MS,
      () => managed.child.exitCode === null,
    );
    return {
      url: announced.listening,
      metrics: `http://${this.settings.host}:${announced.metricsPort}/metrics`,
    };
  }

  private requireKeyForExternalDatabase(): string {
    if (this.settings.ussdDatabaseUrl) {
      throw new Error(
        'PIN_ENCRYPTION_KEY is required when USSD_DATABASE_URL points at a persistent database',
      );
    }
    return randomBytes(32).toString('hex');
  }

  async stop(code: number): Promise<never> {
    if (this.stopping) return new Promise<never>(() => undefined);
    this.stopping = true;
    const codes = await Promise.all(
      [...this.processes].reverse().map((managed) => stopProcess(managed, STOP_GRACE_MS)),
    );
    await Promise.all(this.databases.map((database) => database.stop()));
    const unclean = codes.some((exit) => exit !== 0 && exit !== null);
    process.exit(code !== 0 ? code : unclean ? 1 : 0);
  }
}

const stack = new LocalStack(settingsFromEnv(process.env));
process.once('SIGINT', () => void stack.stop(0));
process.once('SIGTERM', () => void stack.stop(0));
stack.run().catch((error: unknown) => {
  process.stderr.write(`local stack failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void stack.stop(1);
});
