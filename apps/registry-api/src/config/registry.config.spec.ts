import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { RegistryConfig } from './registry.config';

const base = { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_registry' };

function problems(env: NodeJS.ProcessEnv): string[] {
  try {
    loadConfig('registry-api', RegistryConfig, env);
  } catch (error) {
    if (error instanceof ConfigValidationError) return error.problems.map(({ variable }) => variable).sort();
    throw error;
  }
  return [];
}

describe('RegistryConfig: aggregate cache', () => {
  it('caches aggregate answers for 60 s, at most 2000 of them, by default', () => {
    expect(loadConfig('registry-api', RegistryConfig, base)).toMatchObject({
      AGGREGATE_CACHE_TTL_SECONDS: 60,
      AGGREGATE_CACHE_MAX_ENTRIES: 2000,
    });
  });

  it('accepts 0 to turn the cache off', () => {
    expect(
      loadConfig('registry-api', RegistryConfig, { ...base, AGGREGATE_CACHE_TTL_SECONDS: '0' })
        .AGGREGATE_CACHE_TTL_SECONDS,
    ).toBe(0);
  });

  it.each([
    [{ AGGREGATE_CACHE_TTL_SECONDS: '-1' }, ['AGGREGATE_CACHE_TTL_SECONDS']],
    [{ AGGREGATE_CACHE_TTL_SECONDS: '1.5' }, ['AGGREGATE_CACHE_TTL_SECONDS']],
    [{ AGGREGATE_CACHE_TTL_SECONDS: '86401' }, ['AGGREGATE_CACHE_TTL_SECONDS']],
    [{ AGGREGATE_CACHE_MAX_ENTRIES: '0' }, ['AGGREGATE_CACHE_MAX_ENTRIES']],
    [{ AGGREGATE_CACHE_MAX_ENTRIES: 'many' }, ['AGGREGATE_CACHE_MAX_ENTRIES']],
  ])('refuses %j', (env, variables) => {
    expect(problems({ ...base, ...env })).toEqual(variables);
  });
});

describe('RegistryConfig: authentication limits', () => {
  it('limits failures per address and client id, per address, and the hashes at once', () => {
    expect(loadConfig('registry-api', RegistryConfig, base)).toMatchObject({
      AUTH_FAILURES_PER_MINUTE: 30,
      AUTH_ADDRESS_FAILURES_PER_MINUTE: 120,
      AUTH_HASH_CONCURRENCY: 2,
      AUTH_HASH_QUEUE: 16,
    });
  });

  it.each([
    [{ AUTH_ADDRESS_FAILURES_PER_MINUTE: '-1' }, ['AUTH_ADDRESS_FAILURES_PER_MINUTE']],
    [{ AUTH_HASH_CONCURRENCY: '0' }, ['AUTH_HASH_CONCURRENCY']],
    [{ AUTH_HASH_CONCURRENCY: '17' }, ['AUTH_HASH_CONCURRENCY']],
    [{ AUTH_HASH_QUEUE: 'lots' }, ['AUTH_HASH_QUEUE']],
  ])('refuses %j', (env, variables) => {
    expect(problems({ ...base, ...env })).toEqual(variables);
  });
});

describe('RegistryConfig: database connection limits', () => {
  it('bounds connecting and querying at 5 s and probes idle connections after 10 s by default', () => {
    expect(loadConfig('registry-api', RegistryConfig, base)).toMatchObject({
      DATABASE_CONNECT_TIMEOUT_MS: 5000,
      DATABASE_QUERY_TIMEOUT_MS: 5000,
      DATABASE_KEEPALIVE_IDLE_MS: 10_000,
    });
  });

  it.each([
    [{ DATABASE_CONNECT_TIMEOUT_MS: '0' }, ['DATABASE_CONNECT_TIMEOUT_MS']],
    [{ DATABASE_QUERY_TIMEOUT_MS: '50' }, ['DATABASE_QUERY_TIMEOUT_MS']],
    [{ DATABASE_QUERY_TIMEOUT_MS: 'forever' }, ['DATABASE_QUERY_TIMEOUT_MS']],
    [{ DATABASE_KEEPALIVE_IDLE_MS: '999' }, ['DATABASE_KEEPALIVE_IDLE_MS']],
  ])('refuses %j', (env, variables) => {
    expect(problems({ ...base, ...env })).toEqual(variables);
  });
});

describe('RegistryConfig: PORT', () => {
  it('defaults to 3001 and keeps the base rule: any port, 0 for a free one, nothing else', () => {
    expect(loadConfig('registry-api', RegistryConfig, base).PORT).toBe(3001);
    expect(loadConfig('registry-api', RegistryConfig, { ...base, PORT: '0' }).PORT).toBe(0);
    expect(problems({ ...base, PORT: '65536' })).toEqual(['PORT']);
    expect(problems({ ...base, PORT: 'http' })).toEqual(['PORT']);
  });
});

describe('RegistryConfig: EMPTY_AS', () => {
  it('answers selections that name nothing with 404 by default, or with zero values', () => {
    expect(loadConfig('registry-api', RegistryConfig, base).EMPTY_AS).toBe('404');
    expect(loadConfig('registry-api', RegistryConfig, { ...base, EMPTY_AS: 'zero' }).EMPTY_AS).toBe('zero');
  });

  it.each(['0', 'empty', 'ZERO', '200'])('refuses EMPTY_AS=%s', (value) => {
    expect(problems({ ...base, EMPTY_AS: value })).toEqual(['EMPTY_AS']);
  });
});

describe('RegistryConfig: read replicas and the listener connection', () => {
  it('reads from the primary alone and listens on DATABASE_URL by default', () => {
    const config = loadConfig('registry-api', RegistryConfig, base);
    expect(config.DATABASE_REPLICA_URLS).toEqual([]);
    expect(config.DATABASE_LISTEN_URL).toBeUndefined();
  });

  it('takes a comma-separated list of replicas and a direct URL for the listener', () => {
    const config = loadConfig('registry-api', RegistryConfig, {
      ...base,
      DATABASE_REPLICA_URLS:
        'postgres://reader:pw@replica-a:5432/registry, postgresql://reader:pw@replica-b/registry',
      DATABASE_LISTEN_URL: 'postgres://reader:pw@primary-direct:5432/registry',
    });
    expect(config.DATABASE_REPLICA_URLS).toEqual([
      'postgres://reader:pw@replica-a:5432/registry',
      'postgresql://reader:pw@replica-b/registry',
    ]);
    expect(config.DATABASE_LISTEN_URL).toBe('postgres://reader:pw@primary-direct:5432/registry');
  });

  it.each([
    [{ DATABASE_REPLICA_URLS: 'postgres://a/db,mysql://b/db' }, ['DATABASE_REPLICA_URLS']],
    [{ DATABASE_REPLICA_URLS: 'postgres://a/db postgres://b/db' }, ['DATABASE_REPLICA_URLS']],
    [
      { DATABASE_REPLICA_URLS: Array.from({ length: 17 }, (_, i) => `postgres://r${i}/db`).join(',') },
      ['DATABASE_REPLICA_URLS'],
    ],
    [{ DATABASE_LISTEN_URL: 'primary:5432' }, ['DATABASE_LISTEN_URL']],
  ])('refuses %j', (env, variables) => {
    expect(problems({ ...base, ...env })).toEqual(variables);
  });

  it('names a bad replica URL without printing any of them (they carry passwords)', () => {
    let message = '';
    try {
      loadConfig('registry-api', RegistryConfig, {
        ...base,
        DATABASE_REPLICA_URLS: 'postgres://r:s3cret@a/db,http://x',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toContain('DATABASE_REPLICA_URLS: must be postgres:// URLs separated by commas');
    expect(message).not.toContain('s3cret');
  });
});
