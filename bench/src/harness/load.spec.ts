import { combine, LoadResult, problemsOf, summarise } from './load';

function result(overrides: Partial<LoadResult>): LoadResult {
  return {
    requests: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    statusCodes: {},
    durationS: 1,
    rps: 0,
    p50Ms: 0,
    p99Ms: 0,
    ...overrides,
  };
}

describe('load results', () => {
  it('counts as successful only 2xx answers whose body passed the check', () => {
    const summary = summarise(
      {
        requests: { total: 1000 },
        latency: { p50: 2, p99: 9 },
        duration: 2,
        errors: 0,
        timeouts: 0,
        non2xx: 10,
        statusCodeStats: { 200: { count: 990 }, 503: { count: 10 } },
      },
      5,
      'step 2: expected END',
    );

    expect(summary).toMatchObject({ ok: 985, rps: 492.5, statusCodes: { 200: 990, 503: 10 } });
    expect(problemsOf(summary)).toEqual([
      '10 non-2xx ({"200":990,"503":10})',
      '5 unexpected bodies',
      'first: step 2: expected END',
    ]);
  });

  it('reports a run without a single success as a problem', () => {
    expect(problemsOf(result({}))).toEqual(['no successful request']);
  });

  it('combines passes: counts add up, the rate is over the summed windows, percentiles weighted by requests', () => {
    const combined = combine([
      result({ requests: 100, ok: 100, durationS: 1, p50Ms: 2, p99Ms: 10, statusCodes: { 200: 100 } }),
      result({
        requests: 300,
        ok: 298,
        non2xx: 2,
        durationS: 1,
        p50Ms: 4,
        p99Ms: 20,
        statusCodes: { 200: 298, 500: 2 },
        firstProblem: 'HTTP 500',
      }),
    ]);

    expect(combined).toMatchObject({
      requests: 400,
      ok: 398,
      non2xx: 2,
      durationS: 2,
      rps: 199,
      p50Ms: 3.5,
      p99Ms: 17.5,
      firstProblem: 'HTTP 500',
    });
    expect(combined.statusCodes).toEqual({ 200: 398, 500: 2 });
  });
});
