/**
 * Kept for events/ only, until its session-events.service.ts injects RateLimitMetrics (rate-limit/) itself: the
 * ussd module binds this token to that class. The hop's own families are ussd/'s (HopMetrics), the Redis script
 * timings telemetry/'s (redis-script-metrics.ts).
 */
export abstract class UssdMetrics {
  abstract rateLimited(limit: string): void;
}
