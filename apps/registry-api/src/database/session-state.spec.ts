import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// The service's request pools may sit behind PgBouncer in transaction mode (docs/deployment.md), where consecutive
// statements of one connection may run on different server connections. So nothing the service runs on them may
// leave state in a session: no SET outside a transaction, no named prepared statement, no temporary table, no
// advisory lock, no held cursor, no LISTEN. The exceptions below have a session of their own: the change listener's
// connection (DATABASE_LISTEN_URL) and the CLI's (DATABASE_URL, direct: it writes, stages in temporary tables, COPYs).
const SRC = join(__dirname, '..');
const OWN_SESSION = [
  'cli.ts',
  'cli/',
  'loader/',
  'database/migrations/',
  'database/seed.ts',
  'database/rollups.ts',
  'database/change-listener.ts',
  'database/data-source.ts',
];

const SESSION_STATE: Array<[string, RegExp]> = [
  ['SET outside a transaction', /['"`]\s*SET\s+(SESSION\s+)?[a-z_]+\s*(=|TO)/i],
  ['a named prepared statement', /\bPREPARE\s+\w+|\.query\(\s*\{[^}]*\bname\s*:/s],
  ['a temporary table', /CREATE\s+(LOCAL\s+|GLOBAL\s+)?TEMP(ORARY)?\s+TABLE/i],
  ['an advisory lock', /pg_advisory_lock|pg_try_advisory_lock/i],
  ['a cursor held past its transaction', /WITH\s+HOLD/i],
  ['LISTEN on a pooled connection', /['"`]\s*LISTEN\s/i],
];

function sources(directory: string): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith('.ts') && !path.endsWith('.spec.ts') ? [path] : [];
  });
}

describe('request-path SQL keeps no session state (PgBouncer transaction mode)', () => {
  const files = sources(SRC)
    .map((path) => relative(SRC, path))
    .filter((path) => !OWN_SESSION.some((allowed) => path === allowed || path.startsWith(allowed)));

  it('reads the request path: the repositories and the reader are among the files checked', () => {
    expect(files).toEqual(
      expect.arrayContaining([
        'registry/registry.repository.ts',
        'auth/api-clients.repository.ts',
        'database/sql-reader.ts',
        'database/pool-reader.ts',
      ]),
    );
  });

  it('finds none of the session-bound statements in it', () => {
    const found = files.flatMap((path) => {
      const text = readFileSync(join(SRC, path), 'utf8');
      return SESSION_STATE.filter(([, pattern]) => pattern.test(text)).map(([what]) => `${path}: ${what}`);
    });
    expect(found).toEqual([]);
  });

  it('recognises each of them', () => {
    const samples = [
      "'SET statement_timeout = 5000'",
      "client.query({ name: 'by-id', text: 'SELECT 1' })",
      "'CREATE TEMP TABLE staging (id text)'",
      "'SELECT pg_advisory_lock(1)'",
      "'DECLARE c CURSOR WITH HOLD FOR SELECT 1'",
      '`LISTEN registry_rollups`',
    ];
    expect(
      samples.map((sample) => SESSION_STATE.filter(([, pattern]) => pattern.test(sample)).length),
    ).toEqual([1, 1, 1, 1, 1, 1]);
  });
});
