import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IsDefined, IsInt, IsString, Length, Min } from 'class-validator';
import { AsInteger, AsList, IntegerVariable } from './transforms';
import { DatabaseConfig } from './database.config';
import { BaseServiceConfig } from './base-service.config';
import { ConfigValidationError, loadConfig, readVariable } from './load-config';
import { RemovedVariables } from './removed-variables';
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
    const config = loadConfig('sample', SampleConfig, {
      SECRET_KEY: validSecret,
      PORT: '8080',
      ALLOWED: 'a, b,,c',
    });
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

describe('variables read from files (X_FILE)', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };
  const failure = (env: Record<string, string>): ConfigValidationError => {
    try {
      loadConfig('sample', SampleConfig, env);
    } catch (error) {
      if (error instanceof ConfigValidationError) return error;
      throw error;
    }
    throw new Error('loadConfig accepted the environment');
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'dmrv-config-'));
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('takes a secret from the file X_FILE names, without the trailing line break', () => {
    const config = loadConfig('sample', SampleConfig, {
      SECRET_KEY_FILE: file('secret', `${validSecret}\n`),
    });
    expect(config.SECRET_KEY).toBe(validSecret);
  });

  it('reads any declared variable from a file, and converts it like the variable itself', () => {
    const config = loadConfig('sample', SampleConfig, {
      SECRET_KEY: validSecret,
      PORT_FILE: file('port', '8080\r\n'),
      ALLOWED_FILE: file('allowed', 'a,b\n'),
    });
    expect(config.PORT).toBe(8080);
    expect(config.ALLOWED).toEqual(['a', 'b']);
  });

  it('validates a value read from a file and names the variable, never the value', () => {
    const error = failure({ SECRET_KEY_FILE: file('short', 'short-secret-value\n') });
    expect(error.problems).toEqual([{ variable: 'SECRET_KEY', problem: 'must be 64 hex characters' }]);
    expect(error.message).not.toContain('short-secret-value');
  });

  it('refuses both X and X_FILE set, naming both', () => {
    const error = failure({ SECRET_KEY: validSecret, SECRET_KEY_FILE: file('both', validSecret) });
    expect(error.problems).toEqual([
      { variable: 'SECRET_KEY', problem: 'set either SECRET_KEY or SECRET_KEY_FILE, not both' },
    ]);
    expect(error.message).not.toContain(validSecret);
  });

  it('treats an empty X beside X_FILE as unset (a compose file passes VAR= through)', () => {
    const config = loadConfig('sample', SampleConfig, {
      SECRET_KEY: '',
      SECRET_KEY_FILE: file('empty-beside', validSecret),
    });
    expect(config.SECRET_KEY).toBe(validSecret);
  });

  it('reports a missing file once, by its variable and path, not again as a missing value', () => {
    const path = join(dir, 'absent');
    const error = failure({ SECRET_KEY_FILE: path });
    expect(error.problems).toEqual([
      { variable: 'SECRET_KEY_FILE', problem: `cannot read ${path} (ENOENT)` },
    ]);
    expect(error.message).toBe(
      `sample: invalid configuration\n  - SECRET_KEY_FILE: cannot read ${path} (ENOENT)`,
    );
  });

  it('reports a path it cannot read as a file (here a directory) by variable and path', () => {
    const error = failure({ SECRET_KEY_FILE: dir });
    expect(error.problems).toEqual([{ variable: 'SECRET_KEY_FILE', problem: `cannot read ${dir} (EISDIR)` }]);
  });

  it('counts an empty file as unset, so a required variable is reported missing', () => {
    const error = failure({ SECRET_KEY_FILE: file('empty', '\n') });
    expect(error.problems).toEqual([{ variable: 'SECRET_KEY', problem: 'is required' }]);
  });

  it('reports every problem together: file problems and validation problems', () => {
    const error = failure({
      SECRET_KEY_FILE: join(dir, 'absent'),
      WORKERS: '0',
      PORT: '1',
      PORT_FILE: file('p', '2'),
    });
    expect(error.problems.map((problem) => problem.variable).sort()).toEqual([
      'PORT',
      'SECRET_KEY_FILE',
      'WORKERS',
    ]);
  });

  it('refuses a schema that declares both X and X_FILE', () => {
    class Ambiguous {
      @IsString()
      TOKEN = '';

      @IsString()
      TOKEN_FILE = '';
    }
    expect(() => loadConfig('sample', Ambiguous, {})).toThrow(
      'sample: the schema declares both TOKEN and its _FILE twin',
    );
  });

  it('reads one variable outside a schema the same way (operator commands)', () => {
    expect(
      readVariable('cli', 'DATABASE_URL', { DATABASE_URL_FILE: file('url', 'postgres://u@h/db\n') }),
    ).toBe('postgres://u@h/db');
    expect(readVariable('cli', 'DATABASE_URL', { DATABASE_URL: 'postgres://x@h/db' })).toBe(
      'postgres://x@h/db',
    );
    expect(readVariable('cli', 'DATABASE_URL', {})).toBeUndefined();
    expect(() =>
      readVariable('cli', 'DATABASE_URL', { DATABASE_URL: 'a', DATABASE_URL_FILE: file('url2', 'b') }),
    ).toThrow(
      'cli: invalid configuration\n  - DATABASE_URL: set either DATABASE_URL or DATABASE_URL_FILE, not both',
    );
  });
});

describe('trustedProxies', () => {
  const load = (env: Record<string, string>) =>
    loadConfig('sample', SampleConfig, { SECRET_KEY: validSecret, ...env });

  it('trusts nothing unless enabled', () => {
    expect(trustedProxies(load({ TRUSTED_PROXY_CIDRS: '10.0.0.0/8' }))).toBe(false);
  });

  it('trusts one hop by default, never every hop', () => {
    expect(trustedProxies(load({ TRUST_PROXY_ENABLED: 'true' }))).toBe(1);
    expect(trustedProxies(load({ TRUST_PROXY_ENABLED: 'true', TRUST_PROXY_HOPS: '2' }))).toBe(2);
  });

  it('trusts exactly the listed proxies when given', () => {
    expect(
      trustedProxies(load({ TRUST_PROXY_ENABLED: 'true', TRUSTED_PROXY_CIDRS: '10.0.0.0/8, 192.168.1.1' })),
    ).toEqual(['10.0.0.0/8', '192.168.1.1']);
  });
});

describe('IntegerVariable and DatabaseConfig', () => {
  class RangedConfig extends DatabaseConfig {
    @IntegerVariable({ min: 2, max: 5 })
    WORKERS = 3;
  }
  const url = 'postgres://app@db:5432/app';

  it('converts and checks the range in one decorator', () => {
    expect(loadConfig('ranged', RangedConfig, { DATABASE_URL: url, WORKERS: '4' }).WORKERS).toBe(4);
    expect(() => loadConfig('ranged', RangedConfig, { DATABASE_URL: url, WORKERS: '6' })).toThrow(
      /WORKERS: WORKERS must not be greater than 5/,
    );
    expect(() => loadConfig('ranged', RangedConfig, { DATABASE_URL: url, WORKERS: '1' })).toThrow(
      /WORKERS: WORKERS must not be less than 2/,
    );
    expect(() => loadConfig('ranged', RangedConfig, { DATABASE_URL: url, WORKERS: '2.5' })).toThrow(
      /WORKERS: WORKERS must be an integer number/,
    );
  });

  it('requires a postgres:// DATABASE_URL and bounds the pool', () => {
    expect(() => loadConfig('ranged', RangedConfig, {})).toThrow(/DATABASE_URL: is required/);
    expect(() => loadConfig('ranged', RangedConfig, { DATABASE_URL: 'mysql://x' })).toThrow(
      /DATABASE_URL: must be a postgres:\/\/ URL/,
    );
    expect(() => loadConfig('ranged', RangedConfig, { DATABASE_URL: url, DATABASE_POOL_SIZE: '0' })).toThrow(
      /DATABASE_POOL_SIZE/,
    );
    expect(loadConfig('ranged', RangedConfig, { DATABASE_URL: url }).DATABASE_POOL_SIZE).toBe(10);
  });
});

describe('removed variables', () => {
  @RemovedVariables({ OLD_LIMIT: 'was removed: set LIMIT instead' })
  class Versioned extends BaseServiceConfig {
    @IntegerVariable({ min: 1 })
    LIMIT = 2;
  }

  @RemovedVariables({ OLD_MODE: 'was removed: unset it' })
  class Extended extends Versioned {}

  const message = (schema: new () => object, env: NodeJS.ProcessEnv): string => {
    try {
      loadConfig('sample', schema, env);
    } catch (error) {
      if (error instanceof ConfigValidationError) return error.message;
      throw error;
    }
    return '';
  };

  it('refuses to start while one is set, directly or through its _FILE twin, saying what to do', () => {
    expect(message(Versioned, { OLD_LIMIT: '4' })).toBe(
      'sample: invalid configuration\n  - OLD_LIMIT: was removed: set LIMIT instead',
    );
    expect(message(Versioned, { OLD_LIMIT_FILE: '/run/secrets/old' })).toBe(
      'sample: invalid configuration\n  - OLD_LIMIT: was removed: set LIMIT instead',
    );
  });

  it('lists it with the other problems, and never prints its value', () => {
    const text = message(Versioned, { OLD_LIMIT: 'value-s3cret', LIMIT: '0' });
    expect(text).toContain('  - LIMIT: ');
    expect(text).toContain('  - OLD_LIMIT: was removed: set LIMIT instead');
    expect(text).not.toContain('value-s3cret');
  });

  it('starts when it is unset or empty, as for every variable', () => {
    expect(loadConfig('sample', Versioned, { OLD_LIMIT: '' }).LIMIT).toBe(2);
    expect(Object.keys(loadConfig('sample', Versioned, {}))).not.toContain('OLD_LIMIT');
  });

  it('keeps the removed variables of the class extended', () => {
    expect(message(Extended, { OLD_LIMIT: '1', OLD_MODE: 'x' })).toBe(
      'sample: invalid configuration\n  - OLD_LIMIT: was removed: set LIMIT instead\n  - OLD_MODE: was removed: unset it',
    );
  });

  it('is a programming error to mark a declared variable removed', () => {
    @RemovedVariables({ LIMIT: 'was removed' })
    class Contradictory extends Versioned {}
    expect(() => loadConfig('sample', Contradictory, {})).toThrow(
      'the schema declares LIMIT, which it marks removed',
    );
  });
});
