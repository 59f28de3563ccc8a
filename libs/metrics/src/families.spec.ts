import { Registry } from 'prom-client';
import type { Metric } from 'prom-client';
import { CounterFamily, CountView, HistogramFamily } from './families';

async function exposition(...families: Array<CounterFamily | HistogramFamily | CountView>): Promise<string> {
  const registry = new Registry();
  registry.setDefaultLabels({ service: 'unit' });
  for (const family of families) registry.registerMetric(family as unknown as Metric);
  return registry.metrics();
}

describe('CounterFamily', () => {
  it('counts per label values, keeps one series per distinct values, and writes them through prom-client', async () => {
    const hops = new CounterFamily('dmrv_hops_total', 'Hops', ['outcome', 'screen']);
    hops.inc('continue', 'preMenu');
    hops.inc('continue', 'preMenu');
    hops.labels('end', 'ended').inc(3);
    expect(hops.labels('continue', 'preMenu')).toBe(hops.labels('continue', 'preMenu'));
    expect(await exposition(hops)).toBe(
      [
        '# HELP dmrv_hops_total Hops',
        '# TYPE dmrv_hops_total counter',
        'dmrv_hops_total{outcome="continue",screen="preMenu",service="unit"} 2',
        'dmrv_hops_total{outcome="end",screen="ended",service="unit"} 3',
        '',
      ].join('\n'),
    );
  });

  it('escapes label values and writes numbers in decimal', async () => {
    const family = new CounterFamily('dmrv_odd_total', 'Odd', ['value', 'status']);
    family.inc('say "hi"\\\n', 404);
    expect(await exposition(family)).toContain(
      'dmrv_odd_total{value="say \\"hi\\"\\\\\\n",status="404",service="unit"} 1',
    );
  });

  it('writes an empty label value as no label (as Prometheus reads it)', async () => {
    const family = new CounterFamily('dmrv_cache_total', 'Cache', ['cache', 'aggregate']);
    family.inc('api_clients', '');
    family.inc('aggregates', 'households/stats');
    expect(await exposition(family)).toContain('dmrv_cache_total{cache="api_clients",service="unit"} 1');
    expect(await exposition(family)).toContain(
      'dmrv_cache_total{cache="aggregates",aggregate="households/stats",service="unit"} 1',
    );
  });

  it('has one series and no labels when declared without any', async () => {
    const family = new CounterFamily('dmrv_plain_total', 'Plain', []);
    family.inc();
    family.labels().inc();
    expect(await exposition(family)).toContain('dmrv_plain_total{service="unit"} 2');
  });

  it('forgets every series on reset (the registry resetMetrics())', async () => {
    const family = new CounterFamily('dmrv_reset_total', 'Reset', ['a']);
    family.inc('x');
    family.reset();
    family.inc('y');
    expect(await exposition(family)).not.toContain('a="x"');
  });

  it('refuses a counter name without _total and more than four labels', () => {
    expect(() => new CounterFamily('dmrv_hops', 'Hops', [])).toThrow(/_total/);
    expect(() => new CounterFamily('dmrv_x_total', 'X', ['a', 'b', 'c', 'd', 'e'])).toThrow(/four labels/);
  });
});

describe('HistogramFamily', () => {
  it('finds the same series for the same label values, repeated or interleaved, and a new one after reset', async () => {
    const latency = new HistogramFamily('dmrv_memo_seconds', 'Memo', ['route', 'method', 'status'], [1]);
    const first = latency.labels('/a', 'GET', 200);
    expect(latency.labels('/a', 'GET', 200)).toBe(first);
    const other = latency.labels('/a', 'GET', 404);
    expect(other).not.toBe(first);
    expect(latency.labels('/a', 'GET', 200)).toBe(first);
    expect(latency.labels('/a', 'GET', 404)).toBe(other);
    const unlabelled = latency.labels('/b', 'GET', '');
    expect(latency.labels('/b', 'GET')).toBe(unlabelled);
    expect(latency.labels('/b', 'GET', '')).toBe(unlabelled);
    first.observe(0.5);
    latency.reset();
    const afterReset = latency.labels('/a', 'GET', 200);
    expect(afterReset).not.toBe(first);
    afterReset.observe(2);
    expect(await exposition(latency)).toContain(
      'dmrv_memo_seconds_count{route="/a",method="GET",status="200",service="unit"} 1',
    );
    expect(await exposition(latency)).toContain(
      'dmrv_memo_seconds_bucket{route="/a",method="GET",status="200",le="1",service="unit"} 0',
    );
  });

  it('writes cumulative buckets, +Inf, sum and count per series', async () => {
    const latency = new HistogramFamily('dmrv_latency_seconds', 'Latency', ['route'], [0.1, 0.01, 1]);
    const series = latency.labels('/a');
    for (const value of [0.005, 0.01, 0.05, 2]) series.observe(value);
    expect(await exposition(latency)).toBe(
      [
        '# HELP dmrv_latency_seconds Latency',
        '# TYPE dmrv_latency_seconds histogram',
        'dmrv_latency_seconds_bucket{route="/a",le="0.01",service="unit"} 2',
        'dmrv_latency_seconds_bucket{route="/a",le="0.1",service="unit"} 3',
        'dmrv_latency_seconds_bucket{route="/a",le="1",service="unit"} 3',
        'dmrv_latency_seconds_bucket{route="/a",le="+Inf",service="unit"} 4',
        'dmrv_latency_seconds_sum{route="/a",service="unit"} 2.065',
        'dmrv_latency_seconds_count{route="/a",service="unit"} 4',
        '',
      ].join('\n'),
    );
  });

  it('exports its counts as a counter family of their own, read when scraped', async () => {
    const latency = new HistogramFamily('dmrv_latency_seconds', 'Latency', ['route']);
    const requests = latency.countView('dmrv_requests_total', 'Requests');
    latency.labels('/a').observe(0.1);
    latency.labels('/a').observe(0.2);
    latency.labels('/b').observe(0.3);
    expect(await exposition(requests)).toBe(
      [
        '# HELP dmrv_requests_total Requests',
        '# TYPE dmrv_requests_total counter',
        'dmrv_requests_total{route="/a",service="unit"} 2',
        'dmrv_requests_total{route="/b",service="unit"} 1',
        '',
      ].join('\n'),
    );
    expect(() => latency.countView('dmrv_requests', 'Requests')).toThrow(/_total/);
  });

  it('refuses le as a label name (it is the bucket label)', () => {
    expect(() => new HistogramFamily('dmrv_x_seconds', 'X', ['le'])).toThrow(/le is the bucket label/);
  });
});
