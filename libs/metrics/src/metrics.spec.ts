import { Metrics } from './metrics';
import { parseExposition } from '@dmrv/testing';

describe('Metrics', () => {
  it('labels every series with the service, the process metrics included, and keeps two services apart', async () => {
    const a = new Metrics('service-a');
    const b = new Metrics('service-b');
    a.counter('dmrv_things_total', 'Things', ['kind']).inc('x');
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

  it('refuses a family whose name does not start with dmrv_', () => {
    expect(() => new Metrics('unit').counter('hops_total', 'Hops')).toThrow(/dmrv_/);
  });
});
