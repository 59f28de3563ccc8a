import { execFile } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '@dmrv/testing';
import { entityDid } from '../../tools/local-chain-node/src/seed';
import {
  ComposeProject,
  containerName,
  loadCompose,
  runOnce,
  startOrder,
  stopTimeoutSeconds,
  up,
} from './compose-runner';
import {
  BuiltImage,
  BUILT_COMMIT,
  buildImage,
  composeBuilds,
  imageHealthcheck,
  installedPackages,
  STAND_INS,
  TIER_LABEL,
} from './images';
import { inspect, mainProcess, podman, podmanOk, removeLabelled, until } from './podman';

// The container tier: the production Dockerfiles built and docker-compose.yml run with podman (compose-runner.ts says
// why podman's own commands and not podman-compose), then checked from outside, as an operator would:
// `node scripts/pnpm.mjs run test:containers` (scripts/containers/setup.sh first). docs/testing.md, "Containers".

const run = promisify(execFile);
const log = (line: string) => process.stdout.write(`[containers] ${line}\n`);
const PROJECT = `dmrv-ct-${process.pid}`;
const APP_SERVICES = ['registry-api', 'ussd-gateway', 'protocol-gateway'] as const;
const OUR_SERVICES = [...APP_SERVICES, 'local-chain-node'] as const;
const LONG_RUNNING = ['postgres', 'redis', ...OUR_SERVICES] as const;
const content = JSON.parse(
  readFileSync(join(REPO_ROOT, 'apps/ussd-gateway/content/en.json'), 'utf8'),
) as Record<string, string>;

interface Answer {
  status: number;
  body: string;
}

function http(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? 'GET',
        headers: options.headers,
        agent: false,
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(options.body);
  });
}

function ussdHop(port: number, sessionId: string, text: string): Promise<Answer> {
  return http(port, '/api/ussd', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sessionId, serviceCode: '*384#', phoneNumber: '+254700000123', text }),
  });
}

/** The sorted names of the migrations compiled into an app (the classes its data source registers). */
function migrationFiles(app: string): string[] {
  return readdirSync(join(REPO_ROOT, 'apps', app, 'src', 'database', 'migrations'))
    .filter((file) => /^\d+.*\.ts$/.test(file) && !file.endsWith('.spec.ts'))
    .sort();
}

describe('the stack in containers (docker-compose.yml under podman)', () => {
  const built: BuiltImage[] = [];
  let project: ComposeProject;
  let scratch: string;
  const hostPort = new Map<string, number>();
  const exits = new Map<string, { code: number; seconds: number }>();

  beforeAll(async () => {
    await removeLabelled(TIER_LABEL);
    for (const build of composeBuilds()) {
      const image = await buildImage(build, log);
      log(
        `built ${image.image} from ${image.dockerfile} in ${image.seconds} s: ${(image.bytes / 1e6).toFixed(0)} MB`,
      );
      built.push(image);
    }
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-containers-'));
    // Fresh random secrets for this run, written by the script operators use, outside the repository.
    await run('sh', [join(REPO_ROOT, 'deploy', 'compose-secrets.sh'), join(scratch, 'secrets')]);
    project = loadCompose(readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8'), {
      name: PROJECT,
      label: TIER_LABEL,
      root: REPO_ROOT,
      secretsRoot: scratch,
      profiles: ['local-chain'],
      images: STAND_INS,
      // Host ports chosen by podman (0), so a port taken on this machine cannot fail the run; BIND_ADDRESS unset:
      // the default is what is checked.
      env: { REGISTRY_API_HOST_PORT: '0', USSD_GATEWAY_HOST_PORT: '0', PROTOCOL_GATEWAY_HOST_PORT: '0' },
    });
    const started = Date.now();
    await up(project, log);
    log(`stack up and healthy in ${Math.round((Date.now() - started) / 1000)} s`);
    for (const service of APP_SERVICES) {
      const published = (await inspect(containerName(project, service))).NetworkSettings.Ports ?? {};
      const binding = Object.values(published).flatMap((entries) => entries ?? [])[0];
      hostPort.set(service, Number(binding?.HostPort));
    }
  }, 60 * 60_000);

  /** psql as the cluster's superuser, inside the PostgreSQL container: what the test looks at, not what a service may do. */
  const superuserQuery = async (database: string, sql: string): Promise<string> =>
    (
      await podmanOk([
        'exec',
        containerName(project, 'postgres'),
        'psql',
        '-U',
        'dmrv',
        '-d',
        database,
        '-tAc',
        sql,
      ])
    ).trim();

  afterAll(async () => {
    await removeLabelled(TIER_LABEL);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  it('builds every image from its production Dockerfile, with production dependencies only', async () => {
    expect(built.map(({ dockerfile }) => dockerfile).sort()).toEqual([
      'apps/protocol-gateway/Dockerfile',
      'apps/registry-api/Dockerfile',
      'apps/ussd-gateway/Dockerfile',
      'tools/local-chain-node/Dockerfile',
    ]);
    // Tooling only development brings in. Not typescript or @types/*: pnpm installs typescript as the peer of
    // @nestjs/swagger, and class-validator depends on @types/validator (docs/deployment.md, "Images").
    const devOnly =
      /^(jest|ts-jest|@jest\+|eslint|@eslint\+|typescript-eslint|prettier|@nestjs\+testing|@nestjs\+cli|fast-check|playwright|@dmrv\+testing)/;
    for (const { image } of built) {
      const packages = await installedPackages(image);
      expect(packages.length).toBeGreaterThan(0);
      expect({ image, devOnly: packages.filter((entry) => devOnly.test(entry)) }).toEqual({
        image,
        devOnly: [],
      });
    }
    log(
      `image sizes: ${built.map(({ image, bytes }) => `${image} ${(bytes / 1e6).toFixed(0)} MB`).join(', ')}`,
    );
    // Each service's image states the commit it was built from (dmrv_build_info reads it at start-up).
    for (const { service, image } of built.filter(({ service }) => service !== 'local-chain-node')) {
      const env = JSON.parse(
        (await podmanOk(['image', 'inspect', '--format', '{{json .Config.Env}}', image])).trim(),
      ) as string[];
      expect({ service, commit: env.find((entry) => entry.startsWith('DMRV_BUILD_COMMIT=')) }).toEqual({
        service,
        commit: `DMRV_BUILD_COMMIT=${BUILT_COMMIT}`,
      });
    }
  }, 300_000);

  it('starts every service in dependency order, the local chain node with its profile, the operator CLI not at all', () => {
    const order = startOrder(project);
    expect(order).not.toContain('registry-cli');
    expect(order.indexOf('registry-migrate')).toBeLessThan(order.indexOf('registry-api'));
    expect(order.indexOf('ussd-migrate')).toBeLessThan(order.indexOf('ussd-gateway'));
    expect(order.indexOf('local-chain-node')).toBeLessThan(order.indexOf('protocol-gateway'));
    expect([...order].sort()).toEqual([...LONG_RUNNING, 'registry-migrate', 'ussd-migrate'].sort());
  }, 300_000);

  it('turns every HEALTHCHECK healthy: compose’s, and for our images the Dockerfile’s own', async () => {
    for (const service of LONG_RUNNING) {
      const state = (await inspect(containerName(project, service))).State;
      expect({ service, health: (state.Health ?? state.Healthcheck)?.Status }).toEqual({
        service,
        health: 'healthy',
      });
    }
    for (const service of OUR_SERVICES) {
      const image = project.file.services[service]!.image;
      const check = await podman([
        'exec',
        containerName(project, service),
        ...(await imageHealthcheck(image)),
      ]);
      expect({ service, exit: check.code }).toEqual({ service, exit: 0 });
    }
  }, 300_000);

  it('runs our processes as uid 1000 with no capabilities, on a read-only root file system with a writable /tmp', async () => {
    for (const service of OUR_SERVICES) {
      const container = containerName(project, service);
      expect({ service, ...(await mainProcess(container)) }).toEqual({ service, uid: 1000, capEff: 0n });
      expect({ service, readOnly: (await inspect(container)).HostConfig.ReadonlyRootfs }).toEqual({
        service,
        readOnly: true,
      });
      const write = await podman([
        'exec',
        container,
        'node',
        '-e',
        "require('fs').writeFileSync('/app/probe', 'x')",
      ]);
      expect({ service, refused: /EROFS|read-only file system/i.test(write.stderr) }).toEqual({
        service,
        refused: true,
      });
      const scratchWrite = await podman([
        'exec',
        container,
        'node',
        '-e',
        "require('fs').writeFileSync('/tmp/probe', 'x')",
      ]);
      expect({ service, tmp: scratchWrite.code }).toEqual({ service, tmp: 0 });
    }
  }, 300_000);

  it('publishes the three services on 127.0.0.1 only, and they answer there', async () => {
    for (const service of APP_SERVICES) {
      const bindings = Object.values(
        (await inspect(containerName(project, service))).NetworkSettings.Ports ?? {},
      ).flatMap((entries) => entries ?? []);
      expect({ service, hosts: bindings.map(({ HostIp }) => HostIp) }).toEqual({
        service,
        hosts: ['127.0.0.1'],
      });
      expect({ service, health: (await http(hostPort.get(service)!, '/health')).status }).toEqual({
        service,
        health: 200,
      });
    }
  }, 300_000);

  it('walks a USSD dial to the main menu and on into Know More', async () => {
    const port = hostPort.get('ussd-gateway')!;
    const sessionId = `containers-${process.pid}`;
    const dial = await ussdHop(port, sessionId, '');
    expect(dial.status).toBe(200);
    expect(dial.body).toMatch(
      new RegExp(`^CON ${content['preMenu.title']}\\n1\\. ${content['preMenu.knowMore']}\\n`),
    );
    const knowMore = await ussdHop(port, sessionId, '1');
    expect(knowMore.body).toMatch(
      new RegExp(`^CON ${content['knowMore.title']}\\n1\\. ${content['knowMore.about']}\\n`),
    );
  }, 300_000);

  it('keeps a session-end notification an aggregator posts from another container with its callback URL’s token, and refuses one without it', async () => {
    const sessionId = `containers-events-${process.pid}`;
    expect((await ussdHop(hostPort.get('ussd-gateway')!, sessionId, '')).status).toBe(200);
    const token = readFileSync(join(scratch, 'secrets', 'ussd_events_token'), 'utf8').trim();
    // Africa's Talking's notification: a form post to the callback URL the operator configured, token in the query.
    const form = new URLSearchParams({
      sessionId,
      phoneNumber: '+254700000123',
      serviceCode: '*384#',
      networkCode: '63902',
      status: 'Success',
      durationInMillis: '4200',
      hopsCount: '1',
    }).toString();
    const fromAggregator = async (url: string): Promise<Answer> => {
      const result = await podman([
        'run',
        '--rm',
        '--label',
        `${TIER_LABEL}=${PROJECT}`,
        '--network',
        PROJECT,
        project.images[project.file.services['ussd-gateway']!.image] ??
          project.file.services['ussd-gateway']!.image,
        'node',
        '-e',
        "fetch(process.argv[1], { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: process.argv[2] }).then(async (r) => console.log(JSON.stringify({ status: r.status, body: await r.text() })))",
        url,
        form,
      ]);
      expect({ code: result.code, stderr: result.stderr }).toEqual({
        code: 0,
        stderr: expect.any(String) as string,
      });
      return JSON.parse(result.stdout.trim().split('\n').pop()!) as Answer;
    };
    const stored = () =>
      superuserQuery(
        'dmrv_ussd',
        `SELECT status, duration_ms, session_closed FROM ussd_session_events WHERE session_id = '${sessionId}'`,
      );

    const refused = await fromAggregator('http://ussd-gateway:3000/api/ussd/events');
    expect({ status: refused.status, body: JSON.parse(refused.body) as unknown }).toEqual({
      status: 403,
      body: { message: 'Session events are accepted from the aggregator only' },
    });
    expect(await stored()).toBe('');
    const accepted = await fromAggregator(`http://ussd-gateway:3000/api/ussd/events?token=${token}`);
    expect({ status: accepted.status, body: JSON.parse(accepted.body) as unknown }).toEqual({
      status: 200,
      body: { status: 'recorded' },
    });
    expect(await stored()).toBe('Success|4200|t');
  }, 300_000);

  /**
   * What a service's own credentials may do, tried from inside its container with its own secret files and client
   * libraries, as a compromised process would: each attempt's outcome, `ok` or the error's code and first words.
   */
  async function attemptsAs(service: string, script: string): Promise<Record<string, string>> {
    const outcome =
      "const say = (p) => p.then(() => 'ok', (e) => `${e.code ?? ''} ${e.message}`.trim().split('\\n')[0]);";
    const result = await podman([
      'exec',
      containerName(project, service),
      'node',
      '-e',
      `${outcome}\n${script}`,
    ]);
    expect({ service, code: result.code, stderr: result.stderr }).toEqual({
      service,
      code: 0,
      stderr: expect.any(String) as string,
    });
    return JSON.parse(result.stdout.trim().split('\n').pop()!) as Record<string, string>;
  }

  it('connects the USSD gateway to PostgreSQL as a role of its own that reaches neither the registry nor the server’s programs', async () => {
    const attempts = await attemptsAs(
      'ussd-gateway',
      `
      const { Client } = require('pg');
      const own = require('fs').readFileSync('/run/secrets/ussd_database_url', 'utf8').trim();
      const registry = new URL(own); registry.pathname = '/dmrv_registry';
      const onOwn = (sql) => { const c = new Client({ connectionString: own }); return c.connect().then(() => c.query(sql)).finally(() => c.end()); };
      (async () => {
        const role = await onOwn('SELECT current_user AS name, rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = current_user');
        const toRegistry = new Client({ connectionString: registry.toString() });
        console.log(JSON.stringify({
          role: JSON.stringify(role.rows[0]),
          ownTables: await say(onOwn('SELECT count(*) FROM ussd_accounts')),
          registry: await say(toRegistry.connect().finally(() => toRegistry.end())),
          program: await say(onOwn("COPY (SELECT 1) TO PROGRAM 'id'")),
          serverFile: await say(onOwn("SELECT pg_read_file('/etc/passwd')")),
        }));
      })();`,
    );
    expect(attempts).toEqual({
      role: JSON.stringify({
        name: 'ussd_gateway',
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
      }),
      ownTables: 'ok',
      registry: expect.stringMatching(/^42501 permission denied for database "dmrv_registry"/) as string,
      program: expect.stringMatching(
        /^42501 (permission denied to COPY to or from an external program|must be superuser)/,
      ) as string,
      serverFile: expect.stringMatching(/^42501 permission denied for function pg_read_file/) as string,
    });
  }, 300_000);

  it('connects the registry API as its SELECT-only role, which cannot write', async () => {
    const attempts = await attemptsAs(
      'registry-api',
      `
      const { Client } = require('pg');
      const url = require('fs').readFileSync('/run/secrets/registry_reader_database_url', 'utf8').trim();
      const run = (sql) => { const c = new Client({ connectionString: url }); return c.connect().then(() => c.query(sql)).finally(() => c.end()); };
      (async () => console.log(JSON.stringify({
        read: await say(run('SELECT count(*) FROM households')),
        insert: await say(run("INSERT INTO api_clients (name) VALUES ('intruder')")),
        delete: await say(run('DELETE FROM households')),
        create: await say(run('CREATE TABLE intruder (id int)')),
        superuser: (await run('SELECT rolsuper FROM pg_roles WHERE rolname = current_user')).rows[0].rolsuper ? 'yes' : 'no',
      })))();`,
    );
    expect(attempts).toEqual({
      read: 'ok',
      insert: expect.stringMatching(/^42501 permission denied for table api_clients/) as string,
      delete: expect.stringMatching(/^42501 permission denied for table households/) as string,
      create: expect.stringMatching(/^42501 permission denied for schema public/) as string,
      superuser: 'no',
    });
  }, 300_000);

  it('gives the USSD gateway a Redis user of its own: NOPERM for FLUSHALL and for keys outside its prefix', async () => {
    const attempts = await attemptsAs(
      'ussd-gateway',
      `
      const Redis = require('ioredis');
      const url = require('fs').readFileSync('/run/secrets/ussd_redis_url', 'utf8').trim();
      const redis = new Redis(url, { maxRetriesPerRequest: 0, disableClientInfo: true });
      (async () => {
        console.log(JSON.stringify({
          ownPrefix: await say(redis.get('ussd:containers-probe')),
          flushall: await say(redis.flushall()),
          config: await say(redis.call('CONFIG', 'GET', 'requirepass')),
          keys: await say(redis.keys('*')),
          otherKey: await say(redis.get('registry:anything')),
        }));
        redis.disconnect();
      })();`,
    );
    expect(attempts).toEqual({
      ownPrefix: 'ok',
      flushall: expect.stringMatching(/^NOPERM /) as string,
      config: expect.stringMatching(/^NOPERM /) as string,
      keys: expect.stringMatching(/^NOPERM /) as string,
      otherKey: expect.stringMatching(/^NOPERM /) as string,
    });
  }, 300_000);

  it('keeps Redis closed to a client without the password', async () => {
    const anonymous = await podman(['exec', containerName(project, 'redis'), 'redis-cli', 'ping']);
    expect(anonymous.stdout.trim()).toMatch(/^NOAUTH /);
  }, 300_000);

  it('answers a registry request authenticated by a client the CLI created inside the registry container', async () => {
    const port = hostPort.get('registry-api')!;
    expect((await http(port, '/v1/households/stats')).status).toBe(401);
    const created = await runOnce(project, 'registry-cli', [
      'clients',
      'create',
      '--name',
      'containers-tier',
      '--json',
    ]);
    expect({ code: created.code, stderr: created.stderr }).toEqual({
      code: 0,
      stderr: expect.any(String) as string,
    });
    const client = JSON.parse(created.stdout.trim()) as { client_id: string; secret: string };
    const answer = await http(port, '/v1/households/stats', {
      headers: { authorization: `Bearer ${client.client_id}.${client.secret}` },
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toMatchObject({ total_households: expect.any(Number) as number });
  }, 300_000);

  it('answers a protocol request from the chain node container', async () => {
    const did = entityDid(1);
    const answer = await http(hostPort.get('protocol-gateway')!, `/ixo/entity/${did}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toContain(did);
    // The gateway holds no data of its own: with the node stopped the same request cannot be answered.
    await podmanOk(['stop', containerName(project, 'local-chain-node')]);
    const without = await http(hostPort.get('protocol-gateway')!, `/ixo/entity/${entityDid(2)}`);
    expect(without.status).toBeGreaterThanOrEqual(500);
    await podmanOk(['start', containerName(project, 'local-chain-node')]);
  }, 300_000);

  it('ran each migration exactly once, and a second migrate run finds nothing to do', async () => {
    const database = {
      'registry-api': ['dmrv_registry', 'registry_migrations'],
      'ussd-gateway': ['dmrv_ussd', 'ussd_migrations'],
    } as const;
    for (const [app, [name, table]] of Object.entries(database)) {
      const job = `${app.split('-')[0]}-migrate`;
      const state = (await inspect(containerName(project, job))).State;
      expect({ job, status: state.Status, exit: state.ExitCode }).toEqual({ job, status: 'exited', exit: 0 });
      const rows = () => superuserQuery(name, `SELECT count(*), count(DISTINCT name) FROM ${table}`);
      const expected = `${migrationFiles(app).length}|${migrationFiles(app).length}`;
      expect({ app, rows: await rows() }).toEqual({ app, rows: expected });
      const again = await runOnce(project, job, ['node', 'dist/cli.js', 'migrate']);
      // Each CLI's own words for "nothing to apply".
      const upToDate = app === 'registry-api' ? 'schema is up to date' : 'migrations: up to date';
      expect({ job, code: again.code, said: `${again.stdout}${again.stderr}`.trim().split('\n') }).toEqual({
        job,
        code: 0,
        said: [upToDate],
      });
      expect({ app, rows: await rows() }).toEqual({ app, rows: expected });
    }
  }, 300_000);

  it('drains an in-flight USSD hop on podman stop (SIGTERM) and exits 0 within the grace period', async () => {
    const container = containerName(project, 'ussd-gateway');
    const body = JSON.stringify({
      sessionId: `drain-${process.pid}`,
      serviceCode: '*384#',
      phoneNumber: '+254700000124',
      text: '',
    });
    let stopped: Promise<{ code: number; ms: number }> | undefined;
    const answer = await new Promise<Answer>((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1',
        port: hostPort.get('ussd-gateway')!,
        path: '/api/ussd',
        method: 'POST',
        agent: false,
        headers: {
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          expect: '100-continue',
        },
      });
      outgoing.on('error', reject);
      outgoing.on('response', (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
      });
      // The server has read the request line and headers (it answers 100 Continue): the hop is in flight. Half the
      // body goes now, the rest once the service says it is draining.
      outgoing.on('continue', () => {
        outgoing.write(body.slice(0, 10));
        const began = Date.now();
        stopped = podman(['stop', container], { timeoutMs: 60_000 }).then((result) => ({
          code: result.code,
          ms: Date.now() - began,
        }));
        until(
          'the gateway logs SIGTERM',
          async () =>
            (await podman(['logs', container])).stdout.includes('SIGTERM received: draining')
              ? true
              : undefined,
          { timeoutMs: 20_000, intervalMs: 200 },
        ).then(() => outgoing.end(body.slice(10)), reject);
      });
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^CON /);
    const { code, ms } = await stopped!;
    expect(code).toBe(0);
    const state = (await inspect(container)).State;
    expect({ status: state.Status, exit: state.ExitCode }).toEqual({ status: 'exited', exit: 0 });
    expect(ms).toBeLessThan(stopTimeoutSeconds(project, 'ussd-gateway') * 1000);
    exits.set('ussd-gateway', { code: state.ExitCode, seconds: ms / 1000 });
  }, 300_000);

  it('stops every other service of ours with exit code 0 within its grace period', async () => {
    for (const service of OUR_SERVICES.filter((name) => name !== 'ussd-gateway')) {
      const container = containerName(project, service);
      const began = Date.now();
      await podmanOk(['stop', container], { timeoutMs: 60_000 });
      const ms = Date.now() - began;
      const state = (await inspect(container)).State;
      expect({ service, exit: state.ExitCode }).toEqual({ service, exit: 0 });
      expect({ service, withinGrace: ms < stopTimeoutSeconds(project, service) * 1000 }).toEqual({
        service,
        withinGrace: true,
      });
      exits.set(service, { code: state.ExitCode, seconds: ms / 1000 });
    }
    log(
      `stopped: ${[...exits].map(([service, { code, seconds }]) => `${service} exit ${code} in ${seconds.toFixed(1)} s`).join(', ')}`,
    );
  }, 300_000);
});
