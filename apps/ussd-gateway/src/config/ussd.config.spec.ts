import { availableParallelism } from 'node:os';
import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { redisTopologyOf } from '../redis/redis-client';
import { EVENTS_SENDER_REQUIRED, UssdConfig } from './ussd.config';

const KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_ussd', PIN_ENCRYPTION_KEY: KEY };

function problems(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig('ussd-gateway', UssdConfig, env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.message;
    throw error;
  }
  return '';
}

describe('UssdConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig('ussd-gateway', UssdConfig, base);
    expect(config).toMatchObject({
      PORT: 3000,
      REDIS_KEY_PREFIX: 'ussd:',
      PIN_ENCRYPTION_KEY_ID: 'k1',
      PIN_PREVIOUS_KEYS: [],
      PIN_MAX_ATTEMPTS: 3,
      PIN_LOCKOUT_SECONDS: 900,
      SESSION_TTL_SECONDS: 180,
      HOP_TIMEOUT_MS: 5000,
      RATE_LIMIT_PER_IP: 100,
      RATE_LIMIT_WINDOW_SECONDS: 60,
      RATE_LIMIT_EXEMPT_CIDRS: [],
      RATE_LIMIT_PER_PHONE: 30,
    });
    expect(config.REDIS_URL).toBeUndefined();
    expect(config.OPERATOR_TOKEN).toBeUndefined();
  });

  it('names every missing or malformed variable and never prints a value', () => {
    const message = problems({
      PIN_ENCRYPTION_KEY: 'not-a-key-secret-value',
      REDIS_URL: 'http://x',
      OPERATOR_TOKEN: 'short',
      RATE_LIMIT_EXEMPT_CIDRS: '10.0.0.0/8,bad cidr',
      PIN_PREVIOUS_KEYS: 'k0:abc',
      EVENTS_ALLOWED_CIDRS: '196.201.214.0/24,aggregator',
      EVENTS_TOKEN: 'short-secret-1',
    });
    for (const variable of [
      'DATABASE_URL',
      'PIN_ENCRYPTION_KEY',
      'REDIS_URL',
      'OPERATOR_TOKEN',
      'RATE_LIMIT_EXEMPT_CIDRS',
      'PIN_PREVIOUS_KEYS',
      'EVENTS_ALLOWED_CIDRS',
      'EVENTS_TOKEN',
    ]) {
      expect(message).toContain(`${variable}:`);
    }
    expect(message).not.toContain('not-a-key-secret-value');
    expect(message).not.toContain('short-secret-1');
  });

  describe('the session-end notification endpoint under NODE_ENV=production', () => {
    const production = { ...base, NODE_ENV: 'production' };

    it('refuses to start when nobody may post to it, naming the settings that fix it', () => {
      expect(problems(production)).toBe(
        `ussd-gateway: invalid configuration\n  - EVENTS_TOKEN: ${EVENTS_SENDER_REQUIRED}`,
      );
      for (const variable of ['EVENTS_TOKEN', 'EVENTS_ALLOWED_CIDRS', 'EVENTS_ENABLED=false'])
        expect(EVENTS_SENDER_REQUIRED).toContain(variable);
    });

    it.each([
      [{ EVENTS_TOKEN: 'aggregator-callback-secret-1' }],
      [{ EVENTS_ALLOWED_CIDRS: '196.201.214.0/24' }],
      [{ EVENTS_ENABLED: 'false' }],
    ])('starts with %j', (events) => {
      expect(problems({ ...production, ...events })).toBe('');
    });

    it('leaves development alone: loopback may post (npm start)', () => {
      expect(problems(base)).toBe('');
      expect(loadConfig('ussd-gateway', UssdConfig, base).EVENTS_ENABLED).toBe(true);
    });

    it('still checks a token that is set, production or not', () => {
      expect(problems({ ...base, EVENTS_ENABLED: 'false', EVENTS_TOKEN: 'short' })).toContain(
        'EVENTS_TOKEN: must be at least 16 characters',
      );
      expect(problems({ ...base, EVENTS_ENABLED: 'maybe' })).toContain('EVENTS_ENABLED:');
    });
  });

  it('serves the simulator only when SIMULATOR_ENABLED says so, in words a person cannot misread', () => {
    expect(loadConfig('ussd-gateway', UssdConfig, base).SIMULATOR_ENABLED).toBe(false);
    expect(
      loadConfig('ussd-gateway', UssdConfig, { ...base, SIMULATOR_ENABLED: 'true' }).SIMULATOR_ENABLED,
    ).toBe(true);
    expect(problems({ ...base, SIMULATOR_ENABLED: 'yes' })).toContain('SIMULATOR_ENABLED:');
  });

  it('sizes PIN hashing to the cores, with a queue of 64 and a scrypt cost of 2^14, unless told otherwise', () => {
    const config = loadConfig('ussd-gateway', UssdConfig, base);
    expect(config.PIN_HASH_CONCURRENCY).toBe(availableParallelism());
    expect({ queue: config.PIN_HASH_QUEUE, cost: config.PIN_HASH_COST_LOG2 }).toEqual({
      queue: 64,
      cost: 14,
    });
    const set = loadConfig('ussd-gateway', UssdConfig, {
      ...base,
      PIN_HASH_CONCURRENCY: '3',
      PIN_HASH_QUEUE: '0',
      PIN_HASH_COST_LOG2: '15',
    });
    expect([set.PIN_HASH_CONCURRENCY, set.PIN_HASH_QUEUE, set.PIN_HASH_COST_LOG2]).toEqual([3, 0, 15]);
  });

  it.each([
    [{ PIN_HASH_CONCURRENCY: '0' }, 'PIN_HASH_CONCURRENCY'],
    [{ PIN_HASH_CONCURRENCY: 'two' }, 'PIN_HASH_CONCURRENCY'],
    [{ PIN_HASH_QUEUE: '-1' }, 'PIN_HASH_QUEUE'],
    [{ PIN_HASH_COST_LOG2: '9' }, 'PIN_HASH_COST_LOG2'],
    [{ PIN_HASH_COST_LOG2: '18' }, 'PIN_HASH_COST_LOG2'],
  ])('refuses %p at start-up, naming %s', (env, variable) => {
    expect(problems({ ...base, ...env })).toContain(`${variable}:`);
  });

  it.each([
    [
      'PIN_HASH_NICE',
      "was removed: PIN hashes run on libuv's thread pool at the process's priority. Unset it; to leave the event loop more CPU, lower PIN_HASH_CONCURRENCY",
    ],
    [
      'PIN_HASH_CONCURRENCY_IDLE',
      "was removed: PIN_HASH_CONCURRENCY is the one limit on PIN hashes at once, whatever the event loop's load. Unset it and set PIN_HASH_CONCURRENCY to the number of hashes to run at once",
    ],
  ])('refuses to start while the removed %s is set, saying what replaced it', (variable, guidance) => {
    const expected = `ussd-gateway: invalid configuration\n  - ${variable}: ${guidance}`;
    expect(problems({ ...base, [variable]: '0' })).toBe(expected);
    expect(problems({ ...base, [`${variable}_FILE`]: '/run/secrets/pin-hash' })).toBe(expected);
    expect(() => loadConfig('ussd-gateway', UssdConfig, { ...base, [variable]: '' })).not.toThrow();
  });

  it('parses lists', () => {
    const config = loadConfig('ussd-gateway', UssdConfig, {
      ...base,
      RATE_LIMIT_EXEMPT_CIDRS: '196.201.214.0/24, 10.0.0.1',
      PIN_PREVIOUS_KEYS: `k0:${KEY}`,
    });
    expect(config.RATE_LIMIT_EXEMPT_CIDRS).toEqual(['196.201.214.0/24', '10.0.0.1']);
    expect(config.PIN_PREVIOUS_KEYS).toEqual([`k0:${KEY}`]);
  });

  describe('Redis topology', () => {
    it('takes a cluster or sentinels instead of one node', () => {
      const cluster = loadConfig('ussd-gateway', UssdConfig, {
        ...base,
        REDIS_CLUSTER_NODES: 'redis://10.0.0.1:6379, rediss://:pw@10.0.0.2:6380',
      });
      expect(redisTopologyOf(cluster)).toEqual({
        kind: 'cluster',
        nodes: ['redis://10.0.0.1:6379', 'rediss://:pw@10.0.0.2:6380'],
      });
      const sentinel = loadConfig('ussd-gateway', UssdConfig, {
        ...base,
        REDIS_SENTINELS: '10.0.0.1:26379,sentinel-2.redis:26379',
        REDIS_SENTINEL_NAME: 'ussd',
        REDIS_PASSWORD: 'secret',
      });
      expect(redisTopologyOf(sentinel)).toEqual({
        kind: 'sentinel',
        sentinels: ['10.0.0.1:26379', 'sentinel-2.redis:26379'],
        masterName: 'ussd',
        password: 'secret',
        sentinelPassword: undefined,
      });
      expect(redisTopologyOf(loadConfig('ussd-gateway', UssdConfig, base))).toBeNull();
    });

    it.each([
      [
        { REDIS_URL: 'redis://127.0.0.1:6379', REDIS_CLUSTER_NODES: 'redis://10.0.0.1:6379' },
        'REDIS_CLUSTER_NODES: set only one of REDIS_URL, REDIS_CLUSTER_NODES, REDIS_SENTINELS',
      ],
      [
        {
          REDIS_CLUSTER_NODES: 'redis://10.0.0.1:6379',
          REDIS_SENTINELS: '10.0.0.1:26379',
          REDIS_SENTINEL_NAME: 'm',
        },
        'REDIS_SENTINELS: set only one of',
      ],
      [
        { REDIS_CLUSTER_NODES: '10.0.0.1:6379' },
        'REDIS_CLUSTER_NODES: must be a comma-separated list of redis:// or rediss:// URLs',
      ],
      [
        { REDIS_SENTINELS: '10.0.0.1:26379' },
        'REDIS_SENTINEL_NAME: is required with REDIS_SENTINELS: the master name the sentinels monitor',
      ],
      [
        { REDIS_SENTINELS: '10.0.0.1', REDIS_SENTINEL_NAME: 'm' },
        'REDIS_SENTINELS: must be a comma-separated list of host:port',
      ],
      [{ REDIS_SENTINEL_NAME: 'm' }, 'REDIS_SENTINEL_NAME: is used only with REDIS_SENTINELS'],
    ])('refuses %j at start-up, naming the variable', (env, expected) => {
      expect(problems({ ...base, ...env })).toContain(expected);
    });

    it('never prints the password', () => {
      expect(problems({ ...base, REDIS_SENTINELS: 'bad', REDIS_PASSWORD: 'hunter2-secret' })).not.toContain(
        'hunter2-secret',
      );
    });
  });
});
