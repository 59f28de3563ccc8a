import { DynamicModule, Module } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type Redis from 'ioredis';
import { AccountsModule } from '../accounts/accounts.module';
import { UssdConfig } from '../config/ussd.config';
import { loadContent } from '../menus/content';
import { MenuRenderer } from '../menus/menu-renderer';
import { OperatorTokenGuard } from '../operators/operator-token.guard';
import { OperatorsController } from '../operators/operators.controller';
import { RATE_LIMIT_STORAGE } from '../rate-limit/rate-limit.module';
import { REDIS_CLIENT } from '../redis/redis.module';
import { MemorySessionStore } from '../sessions/memory-session.store';
import { RedisSessionStore } from '../sessions/redis-session.store';
import { SESSION_STORE } from '../sessions/session-store';
import { UssdController } from './ussd.controller';
import { MENU_RENDERER, UssdSessionService } from './ussd-session.service';

@Module({})
export class UssdModule {
  static forRoot(config: UssdConfig): DynamicModule {
    // Read once at start-up: a broken content file stops the service instead of breaking screens later.
    const renderer = new MenuRenderer(loadContent(config.CONTENT_FILE));
    return {
      module: UssdModule,
      imports: [AccountsModule.forRoot(config)],
      controllers: [UssdController, OperatorsController],
      providers: [
        UssdSessionService,
        OperatorTokenGuard,
        { provide: UssdConfig, useValue: config },
        { provide: MENU_RENDERER, useValue: renderer },
        {
          provide: SESSION_STORE,
          inject: [REDIS_CLIENT, RATE_LIMIT_STORAGE],
          useFactory: (redis: Redis | null, counter: ThrottlerStorage) =>
            redis ? new RedisSessionStore(redis, config.REDIS_KEY_PREFIX) : new MemorySessionStore(Date.now, counter),
        },
      ],
    };
  }
}
