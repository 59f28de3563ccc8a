import { Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { AccountsModule } from '../accounts/accounts.module';
import { UssdConfig } from '../config/ussd.config';
import { SessionEndOpener } from '../events/session-end-opener';
import { Languages } from '../menus/languages';
import { MenuRenderer } from '../menus/menu-renderer';
import { OrdersModule } from '../orders/orders.module';
import { RateLimitCounter } from '../rate-limit/rate-limit.module';
import type { RedisClient } from '../redis/redis-client';
import { REDIS_CLIENT } from '../redis/redis.module';
import { PhoneLanguageCopyStore } from '../phone-languages/phone-language-copy';
import { SessionStore } from '../sessions/session-store';
import { HopAdmission } from './hop-admission';
import { HopEffects } from './hop-effects';
import { HopMetrics } from './hop-metrics';
import { HopOpener } from './hop-opener';
import { HopResume } from './hop-resume';
import { PhoneLanguages } from './phone-languages';
import { SessionDigests } from './session-digests';
import { SessionHop } from './session-hop';
import { memorySessionRooms, redisSessionRooms, SessionRooms } from './session-rooms';
import { UssdSessionService } from './ussd-session.service';

const SESSION_ROOMS = Symbol('SessionRooms');

@Module({
  imports: [AccountsModule, OrdersModule],
  // POST /api/ussd is a Fastify route of its own (ussd-route.ts), installed at bootstrap. The operator and event
  // endpoints are modules of their own (operators/, events/) that get the session store and the opener from here.
  exports: [SessionStore, SessionEndOpener],
  providers: [
    UssdSessionService,
    SessionHop,
    HopAdmission,
    HopResume,
    HopEffects,
    PhoneLanguages,
    SessionDigests,
    { provide: HopMetrics, inject: [Metrics], useFactory: (metrics: Metrics) => new HopMetrics(metrics) },
    // Languages and CountryLanguages come from LanguageTablesModule, read before any connection opens.
    {
      provide: MenuRenderer,
      inject: [Languages],
      useFactory: (languages: Languages) => new MenuRenderer(languages),
    },
    {
      provide: SESSION_ROOMS,
      inject: [REDIS_CLIENT, UssdConfig, RateLimitCounter],
      useFactory: (redis: RedisClient | null, config: UssdConfig, counter: RateLimitCounter): SessionRooms =>
        redis ? redisSessionRooms(redis, config.REDIS_KEY_PREFIX) : memorySessionRooms(counter),
    },
    { provide: SessionStore, inject: [SESSION_ROOMS], useFactory: (rooms: SessionRooms) => rooms.sessions },
    {
      provide: PhoneLanguageCopyStore,
      inject: [SESSION_ROOMS],
      useFactory: (rooms: SessionRooms) => rooms.copy,
    },
    { provide: HopOpener, inject: [SESSION_ROOMS], useFactory: (rooms: SessionRooms) => rooms.opener },
    { provide: SessionEndOpener, useExisting: HopOpener },
  ],
})
export class UssdModule {}
