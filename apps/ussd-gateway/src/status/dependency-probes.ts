import type { DataSource } from 'typeorm';
import { DependencyProbe, postgresProbe, redisProbe } from '@dmrv/health';
import type { RedisClient } from '../redis/redis-client';

/**
 * What the gateway depends on, as readiness (`/health`, `/health/ready`) and `dmrv_ussd_dependency_up` ask it:
 * PostgreSQL (`database`), and Redis when configured.
 */
export function dependencyProbes(dataSource: DataSource, redis: RedisClient | null): DependencyProbe[] {
  return [
    // Reported, not deciding readiness: without PostgreSQL every instance still serves the screens that need only
    // Redis and answers account hops with the unavailable text; taking them all out of the Service would turn a
    // database outage into connection errors at the aggregator. `/health` still answers 503 (the spec's record).
    { ...postgresProbe((sql) => dataSource.query(sql), 'database'), required: false },
    ...(redis ? [redisProbe(redis, 'redis')] : []),
  ];
}
