import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { parseJwks, verifyAnswer } from '@dmrv/http-signatures';
import { REPO_ROOT, scrape } from '@dmrv/testing';

const MAIN = join(REPO_ROOT, 'tools', 'local-stack', 'dist', 'main.js');

// What `npm start` runs after install and build: the whole stack on embedded defaults (no DATABASE_URL, no
// REDIS_URL, no GRPC_UPSTREAM), up within 90 s, stopped by SIGINT with exit code 0.
describe('npm start: the local stack on embedded defaults', () => {
  let child: ChildProcess;
  let exited: Promise<number | null>;
  let output = '';
  const ports = { registry: 0, ussd: 0, protocol: 0 };
  const metricsPorts = { registry: 0, ussd: 0, protocol: 0 };

  /** A port the stack printed in its banner once it was up. */
  function printedPort(pattern: RegExp): number {
    const port = Number(pattern.exec(output)?.[1]);
    if (!(port > 0)) throw new Error(`the banner names no port for ${pattern}:\n${output}`);
    return port;
  }

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (pnpm run build)`);
    child = spawn(process.execPath, [MAIN], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        LOG_LEVEL: 'warn',
        // Every port 0: each process binds a free one and the stack prints where (no two test runs race for a port).
        REGISTRY_PORT: '0',
        USSD_PORT: '0',
        PROTOCOL_PORT: '0',
        CHAIN_NODE_PORT: '0',
        REGISTRY_METRICS_PORT: '0',
        USSD_METRICS_PORT: '0',
        PROTOCOL_METRICS_PORT: '0',
        LOCAL_SEED_HOUSEHOLDS: '50',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        output += `${line}\n`;
        if (line.startsWith('dMRV local stack is up')) resolve();
      });
      void exited.then((code) => reject(new Error(`local stack exited with ${code}:\n${output}`)));
    });
    ports.registry = printedPort(/registry-api +http:\/\/127\.0\.0\.1:(\d+)\/v1/);
    ports.ussd = printedPort(/ussd-gateway +http:\/\/127\.0\.0\.1:(\d+)\/api\/ussd/);
    ports.protocol = printedPort(/protocol-gateway +http:\/\/127\.0\.0\.1:(\d+)\/ixo/);
    metricsPorts.registry = printedPort(/registry http:\/\/127\.0\.0\.1:(\d+)\/metrics/);
    metricsPorts.ussd = printedPort(/ussd http:\/\/127\.0\.0\.1:(\d+)\/metrics/);
    metricsPorts.protocol = printedPort(/protocol http:\/\/127\.0\.0\.1:(\d+)\/metrics/);
  }, 120_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGKILL');
      await exited;
    }
  });

  it('serves every health endpoint with 200 on embedded defaults', async () => {
    for (const port of [ports.registry, ports.ussd, ports.protocol]) {
      const response = await fetch(`http://127.0.0.1:${port}/health`);
      expect({ port, status: response.status }).toEqual({ port, status: 200 });
    }
  });

  it('prints a working development API client for the seeded registry', async () => {
    const match = /API client \(shown once\): (\S+):(\S+)/.exec(output);
    expect(match).not.toBeNull();
    const authorization = `Basic ${Buffer.from(`${match![1]}:${match![2]}`).toString('base64')}`;
    const response = await fetch(`http://127.0.0.1:${ports.registry}/v1/households/stats`, {
      headers: { authorization },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { total_households: number };
    expect(body.total_households).toBe(50);
  });

  it("signs the registry's answers with a development key it made, and says so", async () => {
    const registry = `http://127.0.0.1:${ports.registry}/v1`;
    expect(output).toContain(
      `answers signed with a development key made for this run: ${registry}/jwks.json`,
    );
    const jwks = parseJwks(await (await fetch(`${registry}/jwks.json`)).json());
    const response = await fetch(`${registry}/hello`);
    const answer = {
      request: { method: 'GET', url: `${registry}/hello` },
      response: {
        status: response.status,
        headers: response.headers,
        body: new Uint8Array(await response.arrayBuffer()),
      },
    };
    await expect(verifyAnswer(answer, jwks)).resolves.toMatchObject({ keyid: jwks.keys[0]!.kid });
  });

  it('answers a USSD dial with the main menu (sessions in memory)', async () => {
    const response = await fetch(`http://127.0.0.1:${ports.ussd}/api/ussd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sessionId: 'local-stack-1',
        serviceCode: '*384#',
        phoneNumber: '+254700000001',
        text: '',
      }),
    });
    expect(response.status).toBe(200);
    expect(await response.text()).toMatch(/^CON /);
  });

  it('serves the USSD simulator and prints where', async () => {
    const response = await fetch(`http://127.0.0.1:${ports.ussd}/simulator`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('<title>USSD simulator</title>');
    expect(output).toContain(
      `simulator (a handset in the browser): http://127.0.0.1:${ports.ussd}/simulator`,
    );
  });

  it('answers a protocol query through the local chain node', async () => {
    const response = await fetch(`http://127.0.0.1:${ports.protocol}/ixo/token/params`);
    expect(response.status).toBe(200);
  });

  it("serves each service's metrics on its own port and prints where", async () => {
    const services = [
      ['registry-api', metricsPorts.registry],
      ['ussd-gateway', metricsPorts.ussd],
      ['protocol-gateway', metricsPorts.protocol],
    ] as const;
    for (const [service, port] of services) {
      const metrics = await scrape(`http://127.0.0.1:${port}/metrics`);
      expect(metrics.find('process_cpu_user_seconds_total', { service })).toHaveLength(1);
    }
  });

  it('stops everything on SIGINT with exit code 0', async () => {
    child.kill('SIGINT');
    await expect(exited).resolves.toBe(0);
    await expect(fetch(`http://127.0.0.1:${ports.registry}/health`)).rejects.toThrow();
  }, 30_000);
});
