import { status } from '@grpc/grpc-js';
import { ChainNodeConfigError, optionsFromEnv } from './options';

describe('CHAIN_NODE_* variables', () => {
  it('has defaults for a local run', () => {
    expect(optionsFromEnv({})).toEqual({
      host: '127.0.0.1',
      port: 9090,
      omitServices: [],
      delayMs: 0,
      slowMethods: [],
      failures: new Map(),
      reflection: true,
      extraModules: ['bank'],
      blockHeight: undefined,
    });
  });

  it('reads every switch', () => {
    const options = optionsFromEnv({
      CHAIN_NODE_HOST: '0.0.0.0',
      CHAIN_NODE_PORT: '0',
      CHAIN_NODE_OMIT_SERVICES: 'token, ixo.iid.v1beta1.Query',
      CHAIN_NODE_DELAY_MS: '2500',
      CHAIN_NODE_SLOW_METHODS: 'claims',
      CHAIN_NODE_FAIL: 'entity=UNAVAILABLE,ixo.claims.v1beta1.Query/Claim=2,*=internal',
      CHAIN_NODE_REFLECTION: 'false',
      CHAIN_NODE_BLOCK_HEIGHT: '77',
      CHAIN_NODE_EARLIEST_HEIGHT: '7',
      CHAIN_NODE_EXTRA_MODULES: 'bank,mint',
    });
    expect(options).toMatchObject({
      host: '0.0.0.0',
      port: 0,
      omitServices: ['token', 'ixo.iid.v1beta1.Query'],
      delayMs: 2500,
      slowMethods: ['claims'],
      reflection: false,
      blockHeight: 77,
      earliestHeight: 7,
      extraModules: ['bank', 'mint'],
    });
    expect([...options.failures!]).toEqual([
      ['entity', status.UNAVAILABLE],
      ['ixo.claims.v1beta1.Query/Claim', status.UNKNOWN],
      ['*', status.INTERNAL],
    ]);
  });

  it.each([
    [{ CHAIN_NODE_PORT: '70000' }, /CHAIN_NODE_PORT/],
    [{ CHAIN_NODE_DELAY_MS: '-1' }, /CHAIN_NODE_DELAY_MS/],
    [{ CHAIN_NODE_FAIL: 'token' }, /CHAIN_NODE_FAIL/],
    [{ CHAIN_NODE_FAIL: 'token=OK' }, /CHAIN_NODE_FAIL/],
    [{ CHAIN_NODE_FAIL: 'token=BROKEN' }, /CHAIN_NODE_FAIL/],
    [{ CHAIN_NODE_REFLECTION: 'maybe' }, /CHAIN_NODE_REFLECTION/],
    [{ CHAIN_NODE_EXTRA_MODULES: 'bank,staking' }, /CHAIN_NODE_EXTRA_MODULES: unknown module/],
    [{ CHAIN_NODE_TLS_CERT_FILE: '/tmp/cert.pem' }, /set both or neither/],
    [
      { CHAIN_NODE_TLS_CERT_FILE: '/nonexistent/cert.pem', CHAIN_NODE_TLS_KEY_FILE: '/nonexistent/key.pem' },
      /CHAIN_NODE_TLS_CERT_FILE: cannot read/,
    ],
  ])('refuses %j', (env, message) => {
    expect(() => optionsFromEnv(env)).toThrow(ChainNodeConfigError);
    expect(() => optionsFromEnv(env)).toThrow(message);
  });
});
