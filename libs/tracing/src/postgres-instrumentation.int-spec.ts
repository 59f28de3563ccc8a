import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

// instrumentPostgres runs first thing in a service's main.ts: it decides from the raw environment, in a process of
// its own, whether OpenTelemetry is loaded at all.
const PACKAGE_DIR = join(__dirname, '..');

/** The OpenTelemetry packages a fresh process has loaded after instrumentPostgres(env). */
async function loadedAfter(env: Record<string, string>): Promise<string[]> {
  const script = `
    require('./dist/index.js').instrumentPostgres(${JSON.stringify(env)});
    const loaded = Object.keys(require.cache)
      .map((path) => /@opentelemetry[\\\\/]([a-z-]+)[\\\\/]/.exec(path)?.[1])
      .filter((name) => name !== undefined);
    process.stdout.write(JSON.stringify([...new Set(loaded)].sort()));`;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
    cwd: PACKAGE_DIR,
    env: { PATH: process.env.PATH },
  });
  return JSON.parse(stdout) as string[];
}

describe('instrumentPostgres', () => {
  beforeAll(() => {
    if (!existsSync(join(PACKAGE_DIR, 'dist', 'index.js')))
      throw new Error('libs/tracing is not built: run `node scripts/pnpm.mjs run build` first');
  });

  it('loads no part of OpenTelemetry without an OTLP endpoint, nor with OTEL_SDK_DISABLED', async () => {
    expect(await loadedAfter({})).toEqual([]);
    expect(
      await loadedAfter({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_SDK_DISABLED: 'true' }),
    ).toEqual([]);
  });

  it('registers the pg instrumentation when an endpoint is set (the probe above can fail)', async () => {
    expect(await loadedAfter({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toEqual(
      expect.arrayContaining(['instrumentation', 'instrumentation-pg']),
    );
  });
});
