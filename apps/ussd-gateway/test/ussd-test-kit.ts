import { once } from 'node:events';
import { AddressInfo, createServer, Server, Socket } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type Redis from 'ioredis';
import { withDeadline } from '@dmrv/deadline';
import { Client } from 'pg';
import {
  createTestDatabase,
  createTestRedisNamespace,
  exampleEnv,
  TestDatabase,
  TestRedisNamespace,
  TEST_REDIS_URL,
} from '@dmrv/testing';
import { bootstrap, BootstrapOptions } from '../src/bootstrap';
import { UssdConfig } from '../src/config/ussd.config';
import { runMigrations } from '../src/database/migrate';
import { REDIS_CLIENT } from '../src/redis/redis.module';

export const OPERATOR_TOKEN = 'operator-token-for-tests-only';
export const SERVICE_CODE = '*384#';
export const UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.';

/** One throwaway database (migrated) and one Redis key namespace for a test file. */
export interface Backing {
  database: TestDatabase;
  redis: TestRedisNamespace;
  env(overrides?: Record<string, string | undefined>): NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

/** `database` (migrated here): one the test made elsewhere, e.g. on a server it started; else a throwaway one. */
export async function createBacking(label: string, database?: TestDatabase): Promise<Backing> {
  database ??= await createTestDatabase(label);
  await runMigrations(database.url);
  const redis = createTestRedisNamespace(label);
  const example = exampleEnv();
  return {
    database,
    redis,
    env: (overrides = {}) => {
      const env: NodeJS.ProcessEnv = {
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        DATABASE_URL: database.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_KEY_PREFIX: redis.keyPrefix,
        PIN_ENCRYPTION_KEY: example.PIN_ENCRYPTION_KEY,
        OPERATOR_TOKEN,
      };
      for (const [name, value] of Object.entries(overrides)) {
        if (value === undefined) delete env[name];
        else env[name] = value;
      }
      return env;
    },
    cleanup: async () => {
      await redis.cleanup();
      await database.drop();
    },
  };
}

/** A test file's app on its own database and key namespace, with a PostgreSQL client on that database. */
export interface TestStack {
  backing: Backing;
  app: NestFastifyApplication;
  db: Client;
}

/** Starts a TestStack before the file's tests and removes it after them; its fields are set once they run. */
export function useTestStack(
  label: string,
  overrides: Record<string, string | undefined> = {},
  options: BootstrapOptions = {},
): TestStack {
  const stack = {} as TestStack;
  beforeAll(async () => {
    stack.backing = await createBacking(label);
    ({ app: stack.app } = await startApp(stack.backing.env(overrides), options));
    stack.db = new Client({ connectionString: stack.backing.database.url });
    await stack.db.connect();
  });
  afterAll(async () => {
    await stack.db?.end();
    await stack.app?.close();
    await stack.backing?.cleanup();
  });
  return stack;
}

export async function startApp(
  env: NodeJS.ProcessEnv,
  options: BootstrapOptions = {},
): Promise<{ app: NestFastifyApplication; config: UssdConfig }> {
  const { app, config } = await bootstrap(env, options);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, config };
}

/** Resolves once the app's Redis client is connected (after a restart of Redis, for instance). */
export async function redisReady(app: NestFastifyApplication): Promise<void> {
  const client = app.get<Redis | null>(REDIS_CLIENT);
  if (client && client.status !== 'ready') await once(client, 'ready');
}

export interface Reply {
  status: number;
  body: string;
  contentType: string | undefined;
}

export async function post(
  app: NestFastifyApplication,
  payload: Record<string, unknown> | string,
  options: { form?: boolean; remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const body =
    typeof payload === 'string'
      ? payload
      : options.form
        ? new URLSearchParams(payload as Record<string, string>).toString()
        : JSON.stringify(payload);
  const response = await app.inject({
    method: 'POST',
    url: '/api/ussd',
    payload: body,
    remoteAddress: options.remoteAddress,
    headers: {
      'content-type': options.form ? 'application/x-www-form-urlencoded' : 'application/json',
      ...options.headers,
    },
  });
  return {
    status: response.statusCode,
    body: response.body,
    contentType: response.headers['content-type'] as string | undefined,
  };
}

let sessionCounter = 0;

/**
 * A subscriber on a handset: each `send` appends one input to the cumulative `text`, as the aggregator does.
 * `app` may change between hops (another instance serving the same session).
 */
export class Handset {
  readonly sessionId: string;
  private readonly inputs: string[] = [];

  constructor(
    public app: NestFastifyApplication,
    readonly phoneNumber = `+2547${String(10_000_000 + Math.floor(Math.random() * 89_999_999))}`,
    sessionId?: string,
  ) {
    sessionCounter += 1;
    this.sessionId = sessionId ?? `ATUid_${process.pid}_${Date.now().toString(36)}_${sessionCounter}`;
  }

  get text(): string {
    return this.inputs.join('*');
  }

  /** The request of the current `text` again (an aggregator retry). */
  async repeat(options: { form?: boolean } = {}): Promise<Reply> {
    return post(
      this.app,
      {
        sessionId: this.sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: this.phoneNumber,
        text: this.text,
      },
      options,
    );
  }

  async dial(options: { form?: boolean } = {}): Promise<string> {
    return (await this.repeat(options)).body;
  }

  async send(input: string, options: { form?: boolean } = {}): Promise<string> {
    this.inputs.push(input);
    const reply = await this.repeat(options);
    expect(reply.status).toBe(200);
    return reply.body;
  }

  /** Sends several inputs, one hop each, and returns the last answer. */
  async sendAll(...inputs: string[]): Promise<string> {
    let last = '';
    for (const input of inputs) last = await this.send(input);
    return last;
  }
}

/** Creates an account through the menus (the e-mail skipped unless given) and returns its Customer ID. */
export async function createAccount(
  app: NestFastifyApplication,
  { name, pin, email = null }: { name: string; pin: string; email?: string | null },
): Promise<{ customerId: string; handset: Handset }> {
  const handset = new Handset(app);
  await handset.dial();
  const last = await handset.sendAll('2', '2', name, email ?? '00', pin, pin);
  const match = /^END Account created\. Your Customer ID is (C[0-9A-F]{8})\./.exec(last);
  if (!match) throw new Error(`account creation answered ${last}`);
  return { customerId: match[1]!, handset };
}

/** A TCP relay in front of PostgreSQL or Redis that a test can stop and start, as if the server went away. */
export interface TcpRelay {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpRelay(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpRelay> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;
  const listen = async (): Promise<void> => {
    const next = createServer((client) => {
      const upstream = new Socket();
      upstream.connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    next.listen(port, '127.0.0.1');
    await once(next, 'listening');
    port = (next.address() as AddressInfo).port;
    server = next;
  };
  const stop = async (): Promise<void> => {
    const current = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (current) await new Promise<void>((resolve) => current.close(() => resolve()));
  };
  await listen();
  return {
    get port() {
      return port;
    },
    stop,
    start: listen,
    close: stop,
  };
}

/** Log lines written by an app started with `{ logDestination: capture.stream }`, parsed. */
export function captureLogs(): {
  stream: { write(line: string): void };
  lines: Array<Record<string, unknown>>;
  raw: string[];
} {
  const raw: string[] = [];
  const lines: Array<Record<string, unknown>> = [];
  return {
    raw,
    lines,
    stream: {
      write(line: string) {
        raw.push(line);
        lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  };
}

/** `url` (redis:// or postgres://) pointed at a fault proxy instead of the real server. */
export function viaProxy(url: string, proxy: { host: string; port: number }): string {
  const proxied = new URL(url);
  proxied.hostname = proxy.host;
  proxied.port = String(proxy.port);
  return proxied.toString();
}

/** `work`, or a failure naming the bound if it has not settled by then: a guard against hangs, not a speed check. */
export function within<T>(boundMs: number, work: Promise<T>): Promise<T> {
  return withDeadline(() => work, {
    ms: boundMs,
    what: 'the awaited event',
    error: () => new Error(`still waiting after ${boundMs} ms`),
  });
}

/**
 * Runs `attempt` until it stops throwing (each attempt waits for its own answer, so no sleeping in between) and
 * returns how long that took; after `deadlineMs` the last failure is rethrown.
 */
export async function eventually(deadlineMs: number, attempt: () => Promise<unknown>): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      await attempt();
      return Date.now() - started;
    } catch (error) {
      if (Date.now() - started > deadlineMs) throw error;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}

/**
 * The aggregator's retries (the same text) of a hop that answered "unavailable" while a dependency failed over,
 * until one is served; returns that answer (`reply` itself if it was served).
 */
export async function servedAfterRetries(
  handset: Handset,
  reply: string,
  deadlineMs = 30_000,
): Promise<string> {
  let last = reply;
  if (last !== UNAVAILABLE) return last;
  await eventually(deadlineMs, async () => {
    last = (await handset.repeat()).body;
    if (last === UNAVAILABLE) throw new Error('the hop is still answered "unavailable"');
  });
  return last;
}
