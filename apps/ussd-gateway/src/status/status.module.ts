import { Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthModule } from '@dmrv/health';
import { REDIS_CLIENT } from '../redis/redis.module';
import { dependencyProbes } from './dependency-probes';
import { StatusController } from './status.controller';

/** The spec's `/` and `/health` records, backed by the shared readiness probes (Redis only when configured). */
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
export class StatusModule {}
