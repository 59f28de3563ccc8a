import type { Counter, Metrics } from '@dmrv/metrics';
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
  private readonly auth: Record<AuthOutcome, Counter.Internal>;
  private readonly caches: Counter;
  private readonly apiClientHit: Counter.Internal;
  private readonly apiClientMiss: Counter.Internal;

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
    for (const outcome of Object.values(this.auth)) outcome.inc(0);
    this.caches = metrics.counter(
      'dmrv_registry_cache_requests_total',
      'Lookups in the in-memory caches: answered from memory (hit) or read from the database (miss)',
      ['cache', 'aggregate', 'result'],
    );
    // The API-client series have no `aggregate` label at all.
    this.apiClientHit = this.caches.labels({ cache: 'api_clients', result: 'hit' });
    this.apiClientMiss = this.caches.labels({ cache: 'api_clients', result: 'miss' });
    this.apiClientHit.inc(0);
    this.apiClientMiss.inc(0);
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
    this.caches.inc({ cache: 'aggregates', aggregate, result: hit ? 'hit' : 'miss' });
  };

  readonly recordLookup = (path: string, hit: boolean): void => {
    this.caches.inc({ cache: 'records', aggregate: path, result: hit ? 'hit' : 'miss' });
  };

  readonly totalLookup = (path: string, hit: boolean): void => {
    this.caches.inc({ cache: 'totals', aggregate: path, result: hit ? 'hit' : 'miss' });
  };

  readonly apiClientLookup = (hit: boolean): void => {
    (hit ? this.apiClientHit : this.apiClientMiss).inc();
  };
}
