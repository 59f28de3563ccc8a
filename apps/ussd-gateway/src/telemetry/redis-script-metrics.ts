import type { Metrics } from '@dmrv/metrics';
import type { Tracing } from '@dmrv/tracing';
import type { RedisClient } from '../redis/redis-client';
import { observeRedisScripts } from '../redis/redis-script';

/**
 * `dmrv_ussd_redis_script_duration_seconds{script, result}`, and with tracing on a span per script call (the pool's
 * queries are traced by the pg instrumentation main.ts registers).
 */
export function observeRedisScriptCalls(metrics: Metrics, tracing: Tracing, redis: RedisClient): void {
  const scripts = metrics.histogram(
    'dmrv_ussd_redis_script_duration_seconds',
    'Redis Lua script calls (the session lock, read and write, the rate-limit counters) and how long they took',
    ['script', 'result'],
    [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  const tracer = tracing.tracer;
  observeRedisScripts(redis, {
    finished: (script, seconds, failed) =>
      scripts.observe({ script, result: failed ? 'error' : 'ok' }, seconds),
    startSpan: tracer
      ? (script) =>
          tracer.startChild(`EVALSHA ${script}`, 'client', {
            'db.system.name': 'redis',
            'db.operation.name': 'EVALSHA',
            'db.stored_procedure.name': script,
          })
      : undefined,
  });
}
