import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createTestDatabase, TestDatabase } from '@dmrv/testing';
import { createClient } from '../src/cli/clients';
import { createDataSource, runMigrations } from '../src/database/data-source';
import { seedRegistry } from '../src/database/seed';
import { SEED_PROJECTS } from '../src/database/seed-data';
import { assertCliBuilt, cli, sql } from './loader-test-kit';
import { get, startApp, TestResponse } from './registry-test-kit';

jest.setTimeout(240_000);

interface Page {
  data: unknown[];
  page_info: { next_cursor: string | null };
}

const COLLECTIONS = [
  '/v1/households/stove-stacking/list',
  '/v1/devices/status/list',
  '/v1/credits/cancelled/list',
  '/v1/credits/transferred/list',
  '/v1/credits/retired/list',
  '/v1/claims/fuel-purchase/list',
  '/v1/claims/fuel-delivery/list',
  '/v1/claims/emission-reduction/list',
  '/v1/claims/household-onboarding/list',
];

/**
 * Seed → export → import into an empty database → the service on each database must give the same answer, status
 * and body, to every question: each endpoint with no parameters, per project, per region, per household, per
 * period, and every page of every collection (cursors included, so record ids and dates survive the trip).
 */
describe('round trip: seed → cli.js export → cli.js import into an empty database → the same API answers', () => {
  let source: TestDatabase;
  let target: TestDatabase;
  let sourceApp: NestFastifyApplication;
  let targetApp: NestFastifyApplication;
  const auth: Record<string, string> = {};
  let exported: string;
  let ndjson: string;

  async function prepare(database: TestDatabase, seed: boolean): Promise<string> {
    await runMigrations(database.url);
    const dataSource = await createDataSource(database.url, 1).initialize();
    try {
      if (seed)
        await seedRegistry((text, params) => dataSource.query(text, params), {
          households: 300,
          seed: 11,
          batchSize: 100,
        });
      return `Bearer ${(await createClient(dataSource, 'round trip')).bearerKey}`;
    } finally {
      await dataSource.destroy();
    }
  }

  beforeAll(async () => {
    assertCliBuilt();
    [source, target] = await Promise.all([
      createTestDatabase('round_trip_source'),
      createTestDatabase('round_trip_target'),
    ]);
    auth.source = await prepare(source, true);
    auth.target = await prepare(target, false);
    exported = mkdtempSync(join(tmpdir(), 'registry-export-'));
    ndjson = mkdtempSync(join(tmpdir(), 'registry-export-ndjson-'));
    const written = await cli(['export', exported, '--quiet'], source.url);
    expect(written.code).toBe(0);
    const loaded = await cli(['import', exported, '--quiet'], target.url);
    expect({ code: loaded.code, stderr: loaded.stderr }).toEqual({ code: 0, stderr: '' });
    [sourceApp, targetApp] = await Promise.all([
      startApp({ DATABASE_URL: source.url }),
      startApp({ DATABASE_URL: target.url }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([sourceApp?.close(), targetApp?.close()]);
    await Promise.all([source?.drop(), target?.drop()]);
    for (const directory of [exported, ndjson])
      if (directory) rmSync(directory, { recursive: true, force: true });
  });

  async function both(url: string): Promise<[TestResponse, TestResponse]> {
    return Promise.all([
      get(sourceApp, url, { authorization: auth.source! }),
      get(targetApp, url, { authorization: auth.target! }),
    ]);
  }

  async function questions(): Promise<string[]> {
    const households = await sql<{ id: string; region: string }>(
      source.url,
      'SELECT id, region FROM households ORDER BY id LIMIT 5',
    );
    const regions = await sql<{ region: string }>(
      source.url,
      'SELECT DISTINCT region FROM households ORDER BY region',
    );
    const blocks = await sql<{ block_id: string }>(
      source.url,
      "SELECT block_id FROM credit_events WHERE kind <> 'issued' ORDER BY id LIMIT 3",
    );
    const projects = SEED_PROJECTS.map((project) => project.id);
    const periods = ['2023', '2024', '2024-Q1', '2024-Q3', '2024-06'];
    const urls = [
      '/v1/households/stats',
      '/v1/households/stove-stacking',
      '/v1/households/stove-stacking?fuel_type=Biomass',
      '/v1/devices/status',
      '/v1/fuel-usage',
      '/v1/fuel/usage',
      '/v1/fuel-usage?from=2024-01-01&to=2024-06-30',
      '/v1/credits/cancelled',
      '/v1/credits/transferred',
      '/v1/credits/retired',
      '/v1/claims/fuel-purchase',
      '/v1/claims/fuel-delivery',
      '/v1/claims/emission-reduction',
      '/v1/claims/household-onboarding',
      '/v1/hello',
    ];
    for (const project of [...projects, 'no-such-project']) {
      const scope = `project_id=${project}`;
      urls.push(
        `/v1/households/stats?${scope}`,
        `/v1/households/stove-stacking?${scope}`,
        `/v1/fuel-usage?${scope}`,
        `/v1/devices/status?${scope}`,
        `/v1/credits/cancelled?${scope}`,
        `/v1/credits/transferred?${scope}`,
        `/v1/credits/retired?${scope}`,
        `/v1/claims/fuel-purchase?${scope}`,
        `/v1/claims/fuel-delivery?${scope}`,
        `/v1/claims/household-onboarding?${scope}`,
        `/v1/claims/emission-reduction?${scope}`,
      );
      for (const period of periods) {
        urls.push(
          `/v1/credits/issued?${scope}&time_period=${period}`,
          `/v1/claims/emission-reduction?${scope}&period=${period}`,
        );
      }
    }
    for (const { region } of regions)
      urls.push(`/v1/households/stats?region=${region}`, `/v1/fuel-usage?region=${region}`);
    for (const { id } of households) {
      urls.push(
        `/v1/fuel-usage?household_id=${id}`,
        `/v1/devices/status?household_id=${id}`,
        `/v1/claims/fuel-purchase?household_id=${id}`,
        `/v1/claims/household-onboarding?household_id=${id}`,
      );
    }
    for (const { block_id } of blocks) {
      urls.push(
        `/v1/credits/transferred?credit_id=${block_id}`,
        `/v1/credits/retired?credit_id=${block_id}`,
        `/v1/credits/cancelled?credit_id=${block_id}`,
      );
    }
    return urls;
  }

  it('answers every endpoint identically', async () => {
    const urls = await questions();
    const differences: string[] = [];
    const statuses = new Set<number>();
    for (const url of urls) {
      const [a, b] = await both(url);
      statuses.add(a.statusCode);
      if (a.statusCode !== b.statusCode || a.body !== b.body)
        differences.push(`${url}: ${a.statusCode} ${a.body} ≠ ${b.statusCode} ${b.body}`);
    }
    expect(differences).toEqual([]);
    // The questions reach both answers and refusals (an unknown project is a 404 on both sides).
    expect([...statuses].sort()).toEqual([200, 404]);
  });

  it('pages through every collection identically, cursor for cursor, with and without a project filter', async () => {
    const differences: string[] = [];
    let items = 0;
    for (const collection of COLLECTIONS) {
      for (const filter of ['', '&project_id=project-002', '&from=2024-01-01&to=2024-12-31']) {
        let cursor: string | null = null;
        do {
          const url = `${collection}?limit=13${filter}${cursor ? `&cursor=${cursor}` : ''}`;
          const [a, b] = await both(url);
          if (a.statusCode !== b.statusCode || a.body !== b.body) {
            differences.push(`${url}: ${a.statusCode} ≠ ${b.statusCode}`);
            break;
          }
          if (a.statusCode !== 200) break;
          const page = a.json<Page>();
          items += page.data.length;
          cursor = page.page_info.next_cursor;
        } while (cursor);
      }
    }
    expect(differences).toEqual([]);
    expect(items).toBeGreaterThan(1000);
  });

  it('covers every registry path the served OpenAPI document lists', async () => {
    const document = (await get(sourceApp, '/v1/openapi.json')).json<{ paths: Record<string, unknown> }>();
    const asked = new Set([...(await questions()), ...COLLECTIONS].map((url) => url.split('?')[0]));
    // Paths are relative to the document's server URL, `/v1`.
    // The signing keys are the service's, not data that an export carries.
    const documented = Object.keys(document.paths)
      .map((path) => `/v1${path}`)
      .filter((path) => path !== '/v1/jwks.json');
    expect(documented.length).toBeGreaterThanOrEqual(22);
    expect(documented.filter((path) => !asked.has(path))).toEqual([]);
  });

  it('exports NDJSON that loads back to the same rows (CSV of the reloaded database equal byte for byte)', async () => {
    expect((await cli(['export', ndjson, '--format', 'ndjson', '--quiet'], target.url)).code).toBe(0);
    const third = await createTestDatabase('round_trip_ndjson');
    const again = mkdtempSync(join(tmpdir(), 'registry-export-again-'));
    try {
      await runMigrations(third.url);
      expect((await cli(['import', ndjson, '--quiet'], third.url)).code).toBe(0);
      expect((await cli(['export', again, '--quiet'], third.url)).code).toBe(0);
      // manifest.json names the time of each export; the data files must match byte for byte.
      const dataFiles = (directory: string): string[] =>
        readdirSync(directory)
          .filter((file) => file !== 'manifest.json')
          .sort();
      const files = dataFiles(exported);
      expect(dataFiles(again)).toEqual(files);
      for (const file of files)
        expect(readFileSync(join(again, file), 'utf8')).toBe(readFileSync(join(exported, file), 'utf8'));
    } finally {
      rmSync(again, { recursive: true, force: true });
      await third.drop();
    }
  });
});
