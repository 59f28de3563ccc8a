import { settingsFromEnv } from './settings';

describe('npm start settings', () => {
  it('defaults to the documented ports and a 500-household seed', () => {
    expect(settingsFromEnv({})).toMatchObject({
      ports: { registry: 3001, ussd: 3000, protocol: 3002, chainNode: 9090 },
      metricsPorts: { registry: 9301, ussd: 9300, protocol: 9302 },
      seedHouseholds: 500,
    });
  });

  it('takes a seed size above any port number (LOCAL_SEED_HOUSEHOLDS is a count, not a port)', () => {
    expect(settingsFromEnv({ LOCAL_SEED_HOUSEHOLDS: '100000' }).seedHouseholds).toBe(100_000);
    expect(settingsFromEnv({ LOCAL_SEED_HOUSEHOLDS: '1' }).seedHouseholds).toBe(1);
  });

  it.each(['0', '-5', '2.5', 'many', '1e5', '99999999999999999999'])(
    'refuses LOCAL_SEED_HOUSEHOLDS=%s, naming it as a count',
    (raw) => {
      expect(() => settingsFromEnv({ LOCAL_SEED_HOUSEHOLDS: raw })).toThrow(
        new Error('LOCAL_SEED_HOUSEHOLDS must be a positive integer'),
      );
    },
  );

  it.each([
    ['REGISTRY_PORT', ' '],
    ['USSD_PORT', '65536'],
    ['PROTOCOL_PORT', 'http'],
    ['CHAIN_NODE_PORT', '90.5'],
    ['USSD_METRICS_PORT', '-1'],
  ])('refuses %s=%s as a port number', (name, raw) => {
    expect(() => settingsFromEnv({ [name]: raw })).toThrow(new Error(`${name} must be a port number`));
  });

  it('uses the given external services and ports, and treats empty values as unset', () => {
    const settings = settingsFromEnv({
      REGISTRY_PORT: '4001',
      REDIS_URL: 'redis://127.0.0.1:6379/0',
      GRPC_UPSTREAM: '',
      USSD_DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/dmrv_ussd',
    });
    expect(settings.ports.registry).toBe(4001);
    expect(settings.redisUrl).toBe('redis://127.0.0.1:6379/0');
    expect(settings.grpcUpstream).toBeUndefined();
    expect(settings.ussdDatabaseUrl).toBe('postgres://postgres@127.0.0.1:5432/dmrv_ussd');
  });
});
