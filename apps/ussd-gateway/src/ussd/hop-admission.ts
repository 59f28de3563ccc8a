import { Injectable } from '@nestjs/common';
import { RateLimitCounter } from '../rate-limit/rate-limit.module';
import { RateLimitMetrics } from '../rate-limit/rate-limit.metrics';
import { RateLimitHit, RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import type { RequestCaller } from '../contract/request-caller';
import { HopMetrics } from './hop-metrics';

/** A hop's rate limits: the limit's headers on every answer, and the limit's refusal for a count past it. */
@Injectable()
export class HopAdmission {
  constructor(
    private readonly limits: RateLimitPolicy,
    private readonly counter: RateLimitCounter,
    private readonly refusals: RateLimitMetrics,
    private readonly metrics: HopMetrics,
  ) {}

  /** A request that never reaches the hop opener (its body is invalid) is counted on its own. */
  async countAlone(hit: RateLimitHit, caller: RequestCaller): Promise<void> {
    this.admit(hit, await this.counter.count(hit), caller);
  }

  admit(hit: RateLimitHit, count: RateLimitCount, caller: RequestCaller): void {
    caller.setHeaders(this.limits.headers(hit, count));
    if (count.isBlocked) {
      this.refusals.rateLimited(hit.name);
      this.metrics.hopFailed('rate_limited');
      throw this.limits.refusal(hit);
    }
  }
}
