import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cacheName, seedFingerprint } from './registry-seed-cache';

describe('seed cache fingerprint', () => {
  let dist: string;

  beforeEach(() => {
    dist = mkdtempSync(join(tmpdir(), 'seed-fingerprint-'));
    mkdirSync(join(dist, 'migrations'));
    writeFileSync(join(dist, 'seed.js'), 'seed v1');
    writeFileSync(join(dist, 'seed.js.map'), 'map v1');
    writeFileSync(join(dist, 'migrations', '1-schema.js'), 'schema v1');
  });

  afterEach(() => rmSync(dist, { recursive: true, force: true }));

  it('changes with the seeder and the size, not with migrations, data access or source maps', () => {
    const before = seedFingerprint(100_000, dist);

    writeFileSync(join(dist, 'migrations', '2-trigger.js'), 'trigger');
    writeFileSync(join(dist, 'seed.js.map'), 'map v2');
    writeFileSync(join(dist, 'data-source.js'), 'pool v2');
    expect(seedFingerprint(100_000, dist)).toBe(before);

    writeFileSync(join(dist, 'rollups.js'), 'rollups v2');
    expect(seedFingerprint(100_000, dist)).not.toBe(before);
    writeFileSync(join(dist, 'rollups.js'), 'rollups v1');

    expect(seedFingerprint(1_000_000, dist)).not.toBe(before);
    writeFileSync(join(dist, 'seed.js'), 'seed v2');
    expect(seedFingerprint(100_000, dist)).not.toBe(before);
  });

  it('names the cache after the run prefix, the size and the fingerprint', () => {
    const settings = { pgAdminUrl: '', redisUrl: '', databasePrefix: 'dmrv_bench_', redisPrefix: '' };
    expect(cacheName(settings, 100_000, 'abcdef0123')).toBe('dmrv_bench_seed_100000_abcdef0123');
  });
});
