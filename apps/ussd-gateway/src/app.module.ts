import { join } from 'node:path';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@dmrv/config';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggingModule, ServiceLoggingOptions } from '@dmrv/logging';
import { buildInfo, MetricsModule } from '@dmrv/metrics';
import { TracingModule } from '@dmrv/tracing';
import { dependencyTimeouts } from './config/dependency-timeouts';
import { UssdConfig } from './config/ussd.config';
import { dataSourceOptions } from './database/data-source';
import { EventsModule } from './events/events.module';
import { OperatorsModule } from './operators/operators.module';
import { RateLimitModule } from './rate-limit/rate-limit.module';
import { RedisModule } from './redis/redis.module';
import { SimulatorModule } from './simulator/simulator.module';
import { StatusModule } from './status/status.module';
import { TelemetryModule } from './telemetry/telemetry.module';
import { LanguageTablesModule } from './ussd/language-tables.module';
import { UssdModule } from './ussd/ussd.module';

@Module({})
export class AppModule {
  static forRoot(config: UssdConfig, logDestination?: ServiceLoggingOptions['destination']): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({
          service: 'ussd-gateway',
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
          redact: ['req.body', 'req.query'],
          destination: logDestination,
        }),
        MetricsModule.forRoot({ service: 'ussd-gateway', config, build: buildInfo(join(__dirname, '..')) }),
        TracingModule.forRoot({ service: 'ussd-gateway', config }),
        // A database that is down at start-up gets a few seconds, then the process exits for the orchestrator to
        // restart it; once running, an outage only makes hops "unavailable" and /health 503.
        TypeOrmModule.forRoot({
          ...dataSourceOptions(
            config.DATABASE_URL,
            config.DATABASE_POOL_SIZE,
            dependencyTimeouts(config.HOP_TIMEOUT_MS),
          ),
          retryAttempts: 5,
          retryDelay: 1000,
        }),
        ConfigModule.forRoot(UssdConfig, config),
        LanguageTablesModule.forRoot(config),
        RedisModule,
        TelemetryModule,
        RateLimitModule,
        StatusModule,
        UssdModule,
        OperatorsModule.withSessions(UssdModule),
        EventsModule.withSessions(UssdModule),
        SimulatorModule.forRoot(config),
      ],
    };
  }
}
