import { Pool } from 'pg';
import { requireEnv, sendJson, serveFloor } from './floor-server';
import {
  COMBINATIONS_SQL,
  countSql,
  CREDITS_ISSUED_SQL,
  DENSITY_SQL,
  EMISSION_REDUCTIONS_SQL,
  firstPageSql,
  FUEL_IN_SCOPE_SQL,
  latestSql,
  periodRange,
  RECORDS,
} from './registry-sql';

// Same pool size as the service's default, so neither side wins by holding more connections.
const pool = new Pool({
  connectionString: requireEnv('DATABASE_URL'),
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
});
const PAGE_LIMIT = 50;

type Row = Record<string, unknown>;

function plain(row: Row): Row {
  const out: Row = {};
  for (const [key, value] of Object.entries(row)) {
    if (key.startsWith('_key_')) continue;
    out[key] = value instanceof Date ? value.toISOString() : value;
  }
  return out;
}

const percentage = (part: number, whole: number): number => Math.round((10000 * part) / whole) / 100;

async function aggregate(path: string, query: URLSearchParams): Promise<unknown> {
  switch (path) {
    case '/households/stats': {
      const { rows } = await pool.query<{ density: 'low' | 'medium' | 'high'; households: string }>(
        DENSITY_SQL,
        [null, null],
      );
      const density = { low: 0, medium: 0, high: 0 };
      for (const row of rows) density[row.density] = Number(row.households);
      return { total_households: density.low + density.medium + density.high, density };
    }
    case '/households/stove-stacking': {
      const { rows } = await pool.query<{ combination: string; households: string }>(COMBINATIONS_SQL, [
        null,
        null,
      ]);
      const total = rows.reduce((sum, row) => sum + Number(row.households), 0);
      return rows[0]
        ? { fuel_type: rows[0].combination, percentage: percentage(Number(rows[0].households), total) }
        : undefined;
    }
    case '/households/stove-stacking/list': {
      // Paged in name order, as the service does, from the same rollup query.
      const { rows } = await pool.query<{ combination: string; households: string }>(COMBINATIONS_SQL, [
        null,
        null,
      ]);
      const total = rows.reduce((sum, row) => sum + Number(row.households), 0);
      const sorted = [...rows].sort((a, b) => (a.combination < b.combination ? -1 : 1));
      const page = sorted.slice(0, PAGE_LIMIT);
      const hasMore = sorted.length > PAGE_LIMIT;
      return {
        data: page.map((row) => ({
          fuel_type: row.combination,
          percentage: percentage(Number(row.households), total),
        })),
        page_info: {
          next_cursor: hasMore
            ? Buffer.from(JSON.stringify([page[page.length - 1]!.combination])).toString('base64url')
            : null,
          has_more: hasMore,
          limit: PAGE_LIMIT,
        },
        total_count: sorted.length,
      };
    }
    case '/fuel-usage': {
      const { rows } = await pool.query<{ total: number }>(FUEL_IN_SCOPE_SQL, [null, null, null, null]);
      return { fuel_consumed: rows[0]!.total };
    }
    case '/credits/issued': {
      const projectId = query.get('project_id') ?? '';
      const period = periodRange(query.get('time_period') ?? '');
      if (!period) return undefined;
      const { rows } = await pool.query<{ credits: string }>(CREDITS_ISSUED_SQL, [
        projectId,
        period.start,
        period.end,
      ]);
      return {
        project_id: projectId,
        time_period: query.get('time_period'),
        credits: Number(rows[0]!.credits),
      };
    }
    default:
      return undefined;
  }
}

async function answer(path: string, query: URLSearchParams): Promise<unknown> {
  if (path === '/claims/emission-reduction' && query.has('time_period')) {
    const projectId = query.get('project_id') ?? '';
    const period = periodRange(query.get('time_period')!);
    if (!period) return undefined;
    const { rows } = await pool.query<{ reductions: number }>(EMISSION_REDUCTIONS_SQL, [
      projectId,
      period.start,
      period.end,
    ]);
    return rows[0]
      ? { project_id: projectId, period: query.get('time_period'), reductions: rows[0].reductions }
      : undefined;
  }
  const record = RECORDS[path];
  if (record) {
    const { rows } = await pool.query<Row>(latestSql(record));
    return rows[0] ? plain(rows[0]) : undefined;
  }
  const listed = path.endsWith('/list') ? RECORDS[path.slice(0, -'/list'.length)] : undefined;
  if (listed) {
    const [page, count] = await Promise.all([
      pool.query<Row>(firstPageSql(listed), [PAGE_LIMIT + 1]),
      pool.query<{ total: string }>(countSql(listed)),
    ]);
    const hasMore = page.rows.length > PAGE_LIMIT;
    const rows = page.rows.slice(0, PAGE_LIMIT);
    const last = rows[rows.length - 1];
    const total = Number(count.rows[0]!.total);
    return {
      data: rows.map(plain),
      page_info: {
        next_cursor:
          hasMore && last
            ? Buffer.from(JSON.stringify([last._key_date, last._key_id, total])).toString('base64url')
            : null,
        has_more: hasMore,
        limit: PAGE_LIMIT,
      },
      total_count: total,
    };
  }
  return aggregate(path, query);
}

serveFloor(
  'registry-floor',
  async (request, _body, response) => {
    const url = new URL(request.url ?? '/', 'http://floor');
    const result = url.pathname.startsWith('/v1/')
      ? await answer(url.pathname.slice(3), url.searchParams)
      : undefined;
    if (result === undefined) return sendJson(response, 404, { message: 'not found' });
    sendJson(response, 200, result);
  },
  () => pool.end(),
);
