import type { Counter, Metrics } from '@dmrv/metrics';
import type { RateLimitHit } from './rate-limit.policy';

/** `dmrv_ussd_rate_limited_total{limit}`: requests refused by a rate limit (`ip`, or `phone` for exempt aggregator traffic). */
export class RateLimitMetrics {
  private readonly refusals: Counter;

  constructor(metrics: Metrics) {
    this.refusals = metrics.counter(
      'dmrv_ussd_rate_limited_total',
      'Requests refused by a rate limit, by limit',
      ['limit'],
    );
  }

  rateLimited(limit: RateLimitHit['name']): void {
    this.refusals.inc({ limit: limit === 'default' ? 'ip' : limit });
  }
}
