import { combine, LoadResult, problemsOf, summarise } from './load';

function result(overrides: Partial<LoadResult>): LoadResult {
  return {
    requests: 0,
    ok: 0,
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    shed: 0,
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
      { unexpected: 5, firstProblem: 'step 2: expected END' },
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

  it('counts shed answers apart: not successful, not a problem', () => {
    const summary = summarise(
      {
        requests: { total: 100 },
        latency: { p50: 2, p99: 9 },
        duration: 2,
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        statusCodeStats: { 200: { count: 100 } },
      },
      { unexpected: 0, shed: 30 },
    );

    expect(summary).toMatchObject({ ok: 70, shed: 30, rps: 35 });
    expect(problemsOf(summary)).toEqual([]);
  });

  it('combines the session tallies of passes: counts add up, rates over the summed windows, hop percentiles weighted by hops', () => {
    const tally = (completed: number, shed: number, completedHops: number, p99: number) => ({
      completed,
      shed,
      work: completed,
      completedPerS: completed,
      shedPerS: shed,
      workPerS: completed,
      completedHops,
      completedHopP50Ms: p99 / 10,
      completedHopP99Ms: p99,
    });
    const combined = combine([
      result({ requests: 10, ok: 10, durationS: 1, sessions: tally(2, 0, 10, 100) }),
      result({ requests: 30, ok: 20, shed: 10, durationS: 1, sessions: tally(4, 10, 30, 500) }),
    ]);

    expect(combined).toMatchObject({ ok: 30, shed: 10, rps: 15 });
    expect(combined.sessions).toEqual({
      completed: 6,
      shed: 10,
      work: 6,
      completedPerS: 3,
      shedPerS: 5,
      workPerS: 3,
      completedHops: 40,
      completedHopP50Ms: 40,
      completedHopP99Ms: 400,
    });
    expect(combine([result({}), result({})]).sessions).toBeUndefined();
  });
});
