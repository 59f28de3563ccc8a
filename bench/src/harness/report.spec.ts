import { LoadResult } from './load';
import { SessionTally } from './steps';
import { batchRatio, BatchResult, growthRows, ratio, renderMarkdown, WorkloadResult } from './report';

function result(rps: number, p50Ms = 2, p99Ms = 9): LoadResult {
  return {
    requests: rps,
    ok: rps,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    shed: 0,
    statusCodes: { 200: rps },
    durationS: 1,
    rps,
    p50Ms,
    p99Ms,
  };
}

function row(
  workload: string,
  floorRps: number,
  serviceRps: number,
  extra: Partial<WorkloadResult> = {},
): WorkloadResult {
  return {
    service: 'registry-api',
    workload,
    connections: 10,
    floor: { result: result(floorRps), peakRssBytes: 60 * 1024 * 1024 },
    target: { result: result(serviceRps), peakRssBytes: 150 * 1024 * 1024 },
    ...extra,
  };
}

const info = {
  startedAt: '2026-11-22T04:40:00Z',
  mode: 'default',
  durationS: 3,
  warmupS: 1,
  node: 'v20',
  cpus: '2 × cpu',
  loadAverage: '1.0',
};

describe('report', () => {
  it('states the ratio to the floor and flags one below 0.7', () => {
    const rows = [row('GET /v1/households/stats', 1000, 800), row('GET /v1/devices/status', 1000, 500)];

    const table = renderMarkdown(info, rows);

    expect(ratio(rows[0]!)).toBeCloseTo(0.8);
    expect(table).toContain(
      '| registry-api | GET /v1/households/stats | – | 10 | 1,000 | 800 | 0.80 | 2.0 / 9.0 | 2.0 / 9.0 | 150 MB | 60 MB |',
    );
    expect(table).toContain('| 0.50 ⚠ |');
  });

  it('never flags the framework reference, and says what it is', () => {
    const rows = [row('GET /constant', 1000, 500, { service: 'reference', reference: true })];

    const table = renderMarkdown(info, rows);

    expect(table).toContain('| reference | GET /constant | – | 10 | 1,000 | 500 | 0.50 | ');
    expect(table).not.toContain('0.50 ⚠');
    expect(table).toContain('The `reference` rows are not services');
  });

  it('pairs an aggregate at two data sizes and flags a slowdown above 1.5×', () => {
    const rows = [
      row('stats', 1000, 900, { growthKey: 'stats', dataset: '100,000 households' }),
      row('stats', 400, 300, { growthKey: 'stats', dataset: '1,000,000 households' }),
      row('stove', 1000, 900, { growthKey: 'stove' }),
      row('stove', 1000, 800, { growthKey: 'stove' }),
    ];

    const growth = growthRows(rows);

    expect(growth.map((g) => [g.key, g.slowdown, g.floorSlowdown])).toEqual([
      ['stats', 3, 2.5],
      ['stove', 1.125, 1],
    ]);
    const table = renderMarkdown(info, rows);
    expect(table).toContain('| stats | 900 → 300 | 2.0 → 2.0 | 3.00× ⚠ | 2.50× |');
    expect(table).toContain('| stove | 900 → 800 | 2.0 → 2.0 | 1.13× | 1.00× |');
  });

  it('lists batch jobs in a table of their own: seconds, rows/s and floor seconds ÷ service seconds', () => {
    const batch: BatchResult = {
      service: 'registry-api',
      workload: 'cli.js import fuel-readings.csv',
      dataset: '1,000,000 readings',
      floor: { seconds: 16, rows: 1_000_000 },
      target: { seconds: 25, rows: 1_000_000 },
      problems: [],
    };

    const table = renderMarkdown(info, [], [batch, { ...batch, target: { seconds: 40, rows: 1_000_000 } }]);

    expect(batchRatio(batch)).toBeCloseTo(0.64);
    expect(table).toContain(
      '| registry-api | cli.js import fuel-readings.csv | 1,000,000 readings | 16.0 | 25.0 | 62,500 | 40,000 | 0.64 ⚠ |',
    );
    expect(table).toContain('| 16.0 | 40.0 | 62,500 | 25,000 | 0.40 ⚠ |');
  });

  it('reports a ratio of zero rather than dividing by a dead floor', () => {
    expect(ratio(row('x', 0, 10))).toBe(0);
  });

  it('measures a row that counts sessions by the sessions both sides completed, not by their answers', () => {
    const sessions = (completedPerS: number, shedPerS: number, p99: number): SessionTally => ({
      completed: completedPerS * 4,
      shed: shedPerS * 4,
      work: completedPerS * 4,
      completedPerS,
      shedPerS,
      workPerS: completedPerS,
      completedHops: completedPerS * 4 * 7,
      completedHopP50Ms: 12,
      completedHopP99Ms: p99,
    });
    // The service sheds half its PIN hops and answers three times the floor's hops; it completes fewer sessions.
    const pin = row('session: create account', 0, 0, {
      service: 'ussd-gateway',
      counts: 'sessions',
      workName: 'scrypt hashes',
      floor: {
        result: { ...result(400), sessions: sessions(50, 0, 800) },
        peakRssBytes: 60 * 1024 * 1024,
        cpuSeconds: 2,
      },
      target: {
        result: { ...result(1200), sessions: sessions(40, 30, 120) },
        peakRssBytes: 150 * 1024 * 1024,
        cpuSeconds: 3.2,
      },
    });

    const table = renderMarkdown(info, [pin, row('GET /v1/households/stats', 1000, 800)]);

    expect(ratio(pin)).toBeCloseTo(0.8);
    expect(table).toContain(
      '| ussd-gateway | session: create account | – | 10 | 50.0 | 40.0 | 0.80 | 12 / 800 | 12 / 120 | 150 MB | 60 MB |',
    );
    expect(table).toContain(
      '| session: create account | 50.0 / 40.0 | 0.80 | 50.0 / 40.0 scrypt hashes | 0.0 / 30.0 | 800 / 120 | 400 / 1,200 | 10.0 / 20.0 |',
    );
    expect(table).toContain(
      '| registry-api | GET /v1/households/stats | – | 10 | 1,000 | 800 | 0.80 | 2.0 / 9.0 | 2.0 / 9.0 | 150 MB | 60 MB |',
    );
    expect(table).toContain("on a row that counts sessions, completed sessions/s ÷ the floor's");
  });

  it('prints no sessions table when no row counts sessions, and a zero ratio for a floor that completed none', () => {
    expect(renderMarkdown(info, [row('x', 10, 10)])).not.toContain('| Sessions |');
    expect(ratio(row('pin', 10, 10, { counts: 'sessions' }))).toBe(0);
  });
});
