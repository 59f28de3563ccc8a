import { EmbeddedPostgres, spawnEmbeddedPostgres } from '@dmrv/embedded-postgres';
import { upBanner } from './banner';
import { announcement, ManagedProcess, startProcess, stopProcess, waitForHealthy } from './processes';
import { Listening, protocolLine, registryLine, ROOT, StackHost, ussdLine } from './service-lines';
import { StackSettings } from './settings';

const HEALTH_TIMEOUT_MS = 90_000;
const STOP_GRACE_MS = 15_000;

/** The running stack: the embedded databases and processes it started, stopped together. */
export class LocalStack implements StackHost {
  private readonly databases: EmbeddedPostgres[] = [];
  private readonly processes: ManagedProcess[] = [];
  private stopping = false;

  constructor(readonly settings: StackSettings) {}

  baseEnv(): NodeJS.ProcessEnv {
    return {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      LOG_LEVEL: this.settings.logLevel,
      LOG_PRETTY: process.stdout.isTTY ? 'true' : 'false',
    };
  }

  async database(configured: string | undefined): Promise<string> {
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

  start(name: string, script: string, env: NodeJS.ProcessEnv): ManagedProcess {
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
    const [registry, ussd, protocol] = await Promise.all([
      registryLine(this).then(async (line) => ({
        ...(await this.listening(line.managed)),
        client: line.client,
      })),
      ussdLine(this).then((managed) => this.listening(managed)),
      protocolLine(this).then(async (line) => ({
        ...(await this.listening(line.managed)),
        upstream: line.upstream,
      })),
    ]);
    const embeddedDatabases = this.databases.length > 0;
    process.stdout.write(upBanner({ registry, ussd, protocol, embeddedDatabases }, this.settings));
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
