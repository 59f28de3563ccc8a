import type { CounterFamily, CounterSeries, Metrics } from '@dmrv/metrics';
import type { ListenerState } from '../database/change-listener';

const LISTENER_STATES: readonly ListenerState[] = [
  'idle',
  'starting',
  'live',
  'down',
  'unsupported',
  'stopped',
];

/** How an authentication attempt ended, as `dmrv_registry_auth_total{outcome}` counts it. */
export type AuthOutcome = 'success' | 'missing' | 'rejected' | 'throttled' | 'busy';

/**
 * The registry's own families (HTTP, pool and process metrics come from @dmrv/metrics):
 * - `dmrv_registry_auth_total{outcome}`: success, missing (no credentials), rejected (malformed, wrong or revoked:
 *   401), throttled (an address past AUTH_FAILURES_PER_MINUTE: 429), busy (too many secrets being hashed at once:
 *   503, nothing checked);
 * - `dmrv_registry_cache_requests_total{cache, aggregate, result}`: hits and misses of the in-memory caches,
 *   `cache="aggregates"` per `aggregate` (`households/stats`, …), `cache="records"` (most recent records) and
 *   `cache="totals"` (collection totals) per path in `aggregate` (`/devices/status`, `/devices/status/list`), and
 *   `cache="api_clients"` (no `aggregate`);
 * - `dmrv_registry_change_listener_state{state}`: 1 for the listener's current state (the caches trust themselves
 *   only while it is `live`).
 */
export class RegistryMetrics {
  private readonly auth: Record<AuthOutcome, CounterSeries>;
  private readonly caches: CounterFamily;
  private readonly apiClientHit: CounterSeries;
  private readonly apiClientMiss: CounterSeries;

  constructor(metrics: Metrics, listenerState: () => ListenerState) {
    const auth = metrics.counter('dmrv_registry_auth_total', 'API client authentications, by outcome', [
      'outcome',
    ]);
    this.auth = {
      success: auth.labels('success'),
      missing: auth.labels('missing'),
      rejected: auth.labels('rejected'),
      throttled: auth.labels('throttled'),
      busy: auth.labels('busy'),
    };
    this.caches = metrics.counter(
      'dmrv_registry_cache_requests_total',
      'Lookups in the in-memory caches: answered from memory (hit) or read from the database (miss)',
      ['cache', 'aggregate', 'result'],
    );
    // An empty label value is no label at all in Prometheus: the API-client series have no `aggregate`.
    this.apiClientHit = this.caches.labels('api_clients', '', 'hit');
    this.apiClientMiss = this.caches.labels('api_clients', '', 'miss');
    metrics.stateGauge(
      'dmrv_registry_change_listener_state',
      'State of the LISTEN connection that keeps the caches fresh (1 = current state)',
      LISTENER_STATES,
      listenerState,
    );
  }

  authenticated(outcome: AuthOutcome): void {
    this.auth[outcome].inc();
  }

  readonly aggregateLookup = (aggregate: string, hit: boolean): void => {
    this.caches.inc('aggregates', aggregate, hit ? 'hit' : 'miss');
  };

  readonly recordLookup = (path: string, hit: boolean): void => {
    this.caches.inc('records', path, hit ? 'hit' : 'miss');
  };

  readonly totalLookup = (path: string, hit: boolean): void => {
    this.caches.inc('totals', path, hit ? 'hit' : 'miss');
  };

  readonly apiClientLookup = (hit: boolean): void => {
    (hit ? this.apiClientHit : this.apiClientMiss).inc();
  };
}
