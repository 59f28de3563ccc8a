import { Inject, Module, OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthModule } from '@dmrv/health';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { DependencyGauge } from '../telemetry/dependency-gauge';
import { dependencyProbes } from './dependency-probes';
import { StatusController } from './status.controller';

/**
 * The spec's `/` and `/health` records, backed by the shared readiness probes (Redis only when configured); the same
 * probes answer `dmrv_ussd_dependency_up` at each scrape.
 */
@Module({
  imports: [
    HealthModule.forRoot({
      service: 'ussd-gateway',
      controller: false,
      inject: [DataSource, REDIS_CLIENT],
      probes: dependencyProbes,
    }),
  ],
  controllers: [StatusController],
})
export class StatusModule implements OnModuleInit {
  constructor(
    private readonly gauge: DependencyGauge,
    private readonly dataSource: DataSource,
    @Inject(REDIS_CLIENT) private readonly redis: RedisClient | null,
  ) {}

  onModuleInit(): void {
    this.gauge.watch(dependencyProbes(this.dataSource, this.redis));
  }
}
