import { Metrics } from './metrics';
import { parseExposition } from '@dmrv/testing';

describe('Metrics', () => {
  it('labels every series with the service, the process metrics included, and keeps two services apart', async () => {
    const a = new Metrics('service-a');
    const b = new Metrics('service-b');
    a.counter('dmrv_things_total', 'Things', ['kind']).inc({ kind: 'x' });
    const exposed = parseExposition(await a.exposition());
    expect(exposed.value('dmrv_things_total', { kind: 'x', service: 'service-a' })).toBe(1);
    expect(exposed.find('process_cpu_user_seconds_total', { service: 'service-a' })).toHaveLength(1);
    expect(parseExposition(await b.exposition()).find('dmrv_things_total')).toEqual([]);
    expect(
      parseExposition(await b.exposition()).find('process_cpu_user_seconds_total', { service: 'service-b' }),
    ).toHaveLength(1);
  });

  it('reads state and pool gauges when scraped', async () => {
    const metrics = new Metrics('unit');
    let state = 'starting';
    metrics.stateGauge('dmrv_listener_state', 'State', ['starting', 'live', 'down'], () => state);
    const pool = { totalCount: 3, idleCount: 1, waitingCount: 0 };
    metrics.observePool('primary', pool);
    metrics.observePool('replica-1', { totalCount: 1, idleCount: 1, waitingCount: 2 });
    let exposed = parseExposition(await metrics.exposition());
    expect(exposed.find('dmrv_listener_state').map((s) => [s.labels.state, s.value])).toEqual([
      ['starting', 1],
      ['live', 0],
      ['down', 0],
    ]);
    expect(exposed.value('dmrv_db_pool_connections', { pool: 'primary', state: 'total' })).toBe(3);
    expect(exposed.value('dmrv_db_pool_connections', { pool: 'primary', state: 'idle' })).toBe(1);
    expect(exposed.value('dmrv_db_pool_waiting_requests', { pool: 'replica-1' })).toBe(2);
    state = 'live';
    pool.totalCount = 5;
    exposed = parseExposition(await metrics.exposition());
    expect(exposed.value('dmrv_listener_state', { state: 'live' })).toBe(1);
    expect(exposed.value('dmrv_db_pool_connections', { pool: 'primary', state: 'total' })).toBe(5);
  });

  it("exports a histogram's counts as a counter family of its own, read when scraped", async () => {
    const metrics = new Metrics('unit');
    const latency = metrics.histogram('dmrv_latency_seconds', 'Latency', ['route', 'status'], [0.1, 1], {
      name: 'dmrv_requests_total',
      help: 'Requests',
    });
    latency.observe({ route: '/a', status: 200 }, 0.05);
    latency.observe({ route: '/a', status: 200 }, 0.5);
    latency.observe({ route: '/b', status: 404 }, 2);
    // Two scrapes at once each read every count once.
    const [exposed, beside] = (await Promise.all([metrics.exposition(), metrics.exposition()])).map(
      parseExposition,
    );
    expect(beside!.find('dmrv_requests_total')).toEqual(exposed!.find('dmrv_requests_total'));
    expect(exposed!.types.get('dmrv_requests_total')).toBe('counter');
    expect(exposed!.types.get('dmrv_latency_seconds')).toBe('histogram');
    expect(exposed!.find('dmrv_requests_total').map((s) => [s.labels, s.value])).toEqual([
      [{ route: '/a', status: '200', service: 'unit' }, 2],
      [{ route: '/b', status: '404', service: 'unit' }, 1],
    ]);
    expect(exposed!.value('dmrv_latency_seconds_bucket', { route: '/a', le: '0.1' })).toBe(1);
    expect(exposed!.value('dmrv_latency_seconds_bucket', { route: '/a', le: '+Inf' })).toBe(2);
    latency.observe({ route: '/a', status: 200 }, 0.2);
    expect(parseExposition(await metrics.exposition()).value('dmrv_requests_total', { route: '/a' })).toBe(3);
  });

  it('exports a bound series at 0 once told to, and a label left out as no label at all', async () => {
    const metrics = new Metrics('unit');
    const caches = metrics.counter('dmrv_cache_total', 'Cache', ['cache', 'aggregate', 'result']);
    caches.labels({ cache: 'api_clients', result: 'hit' }).inc(0);
    caches.labels({ cache: 'api_clients', result: 'miss' }).inc();
    const exposed = parseExposition(await metrics.exposition());
    expect(exposed.find('dmrv_cache_total').map((s) => [s.labels, s.value])).toEqual([
      [{ cache: 'api_clients', result: 'hit', service: 'unit' }, 0],
      [{ cache: 'api_clients', result: 'miss', service: 'unit' }, 1],
    ]);
  });

  it('refuses a family whose name does not start with dmrv_, and a counter whose name does not end in _total', () => {
    const metrics = new Metrics('unit');
    expect(() => metrics.counter('hops_total', 'Hops')).toThrow(/dmrv_/);
    expect(() => metrics.counter('dmrv_hops', 'Hops')).toThrow(/_total/);
    expect(() =>
      metrics.histogram('dmrv_x_seconds', 'X', [], undefined, { name: 'dmrv_x', help: 'X' }),
    ).toThrow(/_total/);
  });
});
