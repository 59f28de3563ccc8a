import { IsDefined, IsInt, IsString, Length, Min } from 'class-validator';
import { AsInteger, AsList } from './transforms';
import { BaseServiceConfig } from './base-service.config';
import { ConfigValidationError, loadConfig } from './load-config';
import { trustedProxies } from './base-service.config';

class SampleConfig extends BaseServiceConfig {
  @IsDefined({ message: 'is required' })
  @IsString()
  @Length(64, 64, { message: 'must be 64 hex characters' })
  SECRET_KEY!: string;

  @AsInteger()
  @IsInt()
  @Min(1)
  WORKERS = 4;

  @AsList()
  @IsString({ each: true })
  ALLOWED: string[] = [];
}

const validSecret = 'a'.repeat(64);

describe('loadConfig', () => {
  it('applies defaults and converts strings to typed values', () => {
    const config = loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, PORT: '8080', ALLOWED: 'a, b,,c' });
    expect(config.PORT).toBe(8080);
    expect(config.WORKERS).toBe(4);
    expect(config.ALLOWED).toEqual(['a', 'b', 'c']);
    expect(config.TRUST_PROXY_ENABLED).toBe(false);
    expect(config).toBeInstanceOf(SampleConfig);
  });

  it('reads only declared variables', () => {
    const config = loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, PATH: '/bin' });
    expect(Object.keys(config)).not.toContain('PATH');
  });

  it('names every missing or malformed variable and never prints a value', () => {
    let thrown: unknown;
    try {
      loadConfig('sample', SampleConfig, { SECRET_KEY: 'short-secret-value', PORT: 'eighty', WORKERS: '0' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigValidationError);
    const error = thrown as ConfigValidationError;
    expect(error.problems.map((p) => p.variable).sort()).toEqual(['PORT', 'SECRET_KEY', 'WORKERS']);
    expect(error.message).toContain('sample: invalid configuration');
    expect(error.message).toContain('SECRET_KEY: must be 64 hex characters');
    expect(error.message).not.toContain('short-secret-value');
  });

  it('reports a required variable that is absent or empty', () => {
    expect(() => loadConfig('sample', SampleConfig, { SECRET_KEY: '' })).toThrow(/SECRET_KEY: is required/);
  });

  it.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('parses boolean %s strictly', (raw, expected) => {
    const config = loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, TRUST_PROXY_ENABLED: raw });
    expect(config.TRUST_PROXY_ENABLED).toBe(expected);
  });

  it('rejects a boolean that is neither true nor false', () => {
    expect(() =>
      loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, TRUST_PROXY_ENABLED: 'yes' }),
    ).toThrow(/TRUST_PROXY_ENABLED/);
  });
});


describe('trustedProxies', () => {
  const load = (env: Record<string, string>) => loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, ...env });

  it('trusts nothing unless enabled', () => {
    expect(trustedProxies(load({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8' }))).toBe(false);
  });

  it('trusts one hop by default, never every hop', () => {
    expect(trustedProxies(load({ TRUST_PROXY_ENABLED: 'true' }))).toBe(1);
    expect(trustedProxies(load({ TRUST_PROXY_ENABLED: 'true', TRUST_PROXY_HOPS: '2' }))).toBe(2);
  });

  it('trusts exactly the listed proxies when given', () => {
    expect(trustedProxies(load({ TRUST_PROXY_ENABLED: 'true', TRUSTED_PROXY_CIDRS: '10.0.0.0/8, 192.168.1.1' }))).toEqual([
      '10.0.0.0/8',
      '192.168.1.1',
    ]);
  });
});
