import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import type { Pool } from 'pg';
import { DataSource } from 'typeorm';
import { TEST_REDIS_URL } from '@dmrv/testing';
import { REDIS_CLIENT } from '../src/redis/redis.module';
import { PhoneLanguages } from '../src/ussd/phone-languages';
import { Backing, createBacking, Handset, post, SERVICE_CODE, startApp } from './ussd-test-kit';

/** A command as Redis executed it, and who sent it: a client's `address:port`, or `lua` inside a script. */
interface Executed {
  args: string[];
  source: string;
}

let backing: Backing;
let app: NestFastifyApplication;
let watcher: Redis;
let monitor: Redis;
let appConnection: string;
const executed: Executed[] = [];
const waiters: Array<() => void> = [];
let sentinels = 0;
/**
 * Every connection the app takes from its PostgreSQL pool (TypeORM takes one for each query, whichever way it is
 * sent): counted, and still taken.
 */
let queries: jest.SpiedFunction<Pool['connect']>;

beforeAll(async () => {
  backing = await createBacking('ussd-round-trips');
  ({ app } = await startApp(backing.env({ RATE_LIMIT_EXEMPT_CIDRS: '196.201.214.0/24' })));
  watcher = new Redis(TEST_REDIS_URL);
  monitor = await watcher.monitor();
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    executed.push({ args, source });
    for (const wake of waiters.splice(0)) wake();
  });
  const client = app.get<Redis>(REDIS_CLIENT);
  await client.ping();
  appConnection = `${client.stream.localAddress}:${client.stream.localPort}`;
  // The phone-language copy complete before anything is counted (a dial without it fills it in the background).
  await app.get(PhoneLanguages).fill();
  const driver = app.get(DataSource).driver as unknown as { master: Pool };
  queries = jest.spyOn(driver.master, 'connect');
});

afterAll(async () => {
  queries?.mockRestore();
  monitor?.disconnect();
  watcher?.disconnect();
  await app?.close();
  await backing?.cleanup();
});

/** Resolves once Redis has executed, and the monitor reported, a marker command sent now. */
async function marker(): Promise<number> {
  const key = `${backing.redis.keyPrefix}marker:${(sentinels += 1)}`;
  await watcher.exists(key);
  for (;;) {
    const index = executed.findIndex((command) => command.args.includes(key));
    if (index >= 0) return index;
    await new Promise<void>((resolve) => waiters.push(resolve));
  }
}

/**
 * The commands executed while `action` ran. Redis runs commands one at a time and MONITOR reports them in that
 * order: whatever the gateway waited for before answering runs between a marker sent before and one sent after.
 */
async function commandsDuring(action: () => Promise<unknown>): Promise<Executed[]> {
  const from = await marker();
  await action();
  const until = await marker();
  return executed.slice(from + 1, until);
}

const fromApp = (commands: Executed[]) => commands.filter((command) => command.source === appConnection);
const names = (commands: Executed[]) => commands.map((command) => command.args[0]);

describe('Redis round trips', () => {
  it('watches the gateway connection: GET / costs its one rate-limit script', async () => {
    await app.inject({ method: 'GET', url: '/', remoteAddress: '10.3.0.1' });
    const commands = await commandsDuring(() =>
      app.inject({ method: 'GET', url: '/', remoteAddress: '10.3.0.1' }),
    );
    expect(names(fromApp(commands))).toEqual(['evalsha']);
    expect(fromApp(commands)[0]!.args).toContain(`${backing.redis.keyPrefix}rl:default:10.3.0.1`);
  });

  it('costs two per hop, the per-IP count included, on every hop of a session', async () => {
    await new Handset(app).dial();
    const handset = new Handset(app);
    const prefix = backing.redis.keyPrefix;
    const counter = `${prefix}rl:default:10.3.0.2`;
    for (const input of [null, '1', '2', '*']) {
      const hop = () =>
        post(
          app,
          {
            sessionId: handset.sessionId,
            serviceCode: SERVICE_CODE,
            phoneNumber: handset.phoneNumber,
            text: handset.text,
          },
          { remoteAddress: '10.3.0.2' },
        );
      if (input !== null) handset['inputs'].push(input);
      queries.mockClear();
      const commands = await commandsDuring(hop);
      const sent = fromApp(commands);
      expect(names(sent)).toEqual(['evalsha', 'evalsha']);
      // The first locks and reads the session and counts the request; the counting runs inside that script.
      expect(sent[0]!.args).toEqual(
        expect.arrayContaining([
          `${prefix}lock:${handset.sessionId}`,
          `${prefix}session:${handset.sessionId}`,
          counter,
        ]),
      );
      expect(commands).toContainEqual({ args: ['INCR', counter], source: 'lua' });
      expect(sent[1]!.args).toContain(`${prefix}session:${handset.sessionId}`);
      // The dial's remembered language comes from the copy, read by the same script: no PostgreSQL query.
      if (input === null)
        expect(commands).toContainEqual({
          args: ['HMGET', `${prefix}phone-languages`, handset.phoneNumber, '!complete'],
          source: 'lua',
        });
      expect(queries).not.toHaveBeenCalled();
    }
    expect(await watcher.get(counter)).toBe('4');
  });

  it('costs two per hop for an aggregator, counted per phone', async () => {
    const handset = new Handset(app, '+254766666666');
    const commands = await commandsDuring(() =>
      post(
        app,
        {
          sessionId: handset.sessionId,
          serviceCode: SERVICE_CODE,
          phoneNumber: handset.phoneNumber,
          text: '',
        },
        { remoteAddress: '196.201.214.5' },
      ),
    );
    expect(names(fromApp(commands))).toEqual(['evalsha', 'evalsha']);
    expect(commands).toContainEqual({
      args: ['INCR', `${backing.redis.keyPrefix}rl:phone:+254766666666`],
      source: 'lua',
    });
  });

  it('a dial without the language copy (flushed, evicted, expired) reads PostgreSQL once and fills the copy; then no query', async () => {
    const prefix = backing.redis.keyPrefix;
    await watcher.del(`${prefix}phone-languages`);
    queries.mockClear();
    const first = new Handset(app, '+254766666601');
    expect(await first.dial()).toMatch(/^CON Welcome to Clean Cooking\n/);
    expect(queries).toHaveBeenCalled();
    // The fill that dial started (one per process at a time: this awaits it).
    await app.get(PhoneLanguages).fill();
    expect(await watcher.hget(`${prefix}phone-languages`, '!complete')).not.toBeNull();
    queries.mockClear();
    const commands = await commandsDuring(() => new Handset(app, '+254766666602').dial());
    expect(names(fromApp(commands))).toEqual(['evalsha', 'evalsha']);
    expect(queries).not.toHaveBeenCalled();
  });

  it('costs one for an invalid request, which is counted and answered without touching a session', async () => {
    const commands = await commandsDuring(() =>
      post(app, { sessionId: 'round-trips-invalid', text: '' }, { remoteAddress: '10.3.0.3' }),
    );
    expect(names(fromApp(commands))).toEqual(['evalsha']);
    expect(commands).toContainEqual({
      args: ['INCR', `${backing.redis.keyPrefix}rl:default:10.3.0.3`],
      source: 'lua',
    });
  });
});
