import { Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { AccountsModule } from '../accounts/accounts.module';
import { UssdConfig } from '../config/ussd.config';
import { SessionEventMetrics } from '../events/session-event.metrics';
import { SessionEventsController } from '../events/session-events.controller';
import { SessionEventsRepository } from '../events/session-events.repository';
import { SessionEventsService } from '../events/session-events.service';
import { loadContent } from '../menus/content';
import { MenuRenderer } from '../menus/menu-renderer';
import { OperatorTokenGuard } from '../operators/operator-token.guard';
import { OperatorsController } from '../operators/operators.controller';
import { RateLimitCounter } from '../rate-limit/rate-limit.module';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { MemorySessionStore } from '../sessions/memory-session.store';
import { RedisSessionStore } from '../sessions/redis-session.store';
import { SessionStore } from '../sessions/session-store';
import { HopEffects } from './hop-effects';
import { SessionDigests } from './session-digests';
import { UssdController } from './ussd.controller';
import { UssdSessionService } from './ussd-session.service';

@Module({
  imports: [AccountsModule],
  controllers: [UssdController, OperatorsController, SessionEventsController],
  providers: [
    UssdSessionService,
    HopEffects,
    SessionDigests,
    OperatorTokenGuard,
    SessionEventsService,
    SessionEventsRepository,
    { provide: SessionEventMetrics, inject: [Metrics], useFactory: (metrics: Metrics) => new SessionEventMetrics(metrics) },
    // Read once at start-up: a broken content file stops the service instead of breaking screens later.
    {
      provide: MenuRenderer,
      inject: [UssdConfig],
      useFactory: (config: UssdConfig) => new MenuRenderer(loadContent(config.CONTENT_FILE)),
    },
    {
      provide: SessionStore,
      inject: [REDIS_CLIENT, UssdConfig, RateLimitCounter],
      useFactory: (redis: RedisClient | null, config: UssdConfig, counter: RateLimitCounter) =>
        redis
          ? new RedisSessionStore(redis, config.REDIS_KEY_PREFIX)
          : new MemorySessionStore(Date.now, counter),
    },
  ],
})
export class UssdModule {}
