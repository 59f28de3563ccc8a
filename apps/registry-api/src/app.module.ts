import { DynamicModule, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HealthModule, postgresProbe } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { MetricsModule } from '@dmrv/metrics';
import { TracingModule } from '@dmrv/tracing';
import { ApiClientGuard } from './auth/api-client.guard';
import { AuthModule } from './auth/auth.module';
import { RateLimitGuard } from './auth/rate-limit.guard';
import { apiBasePath, connectionLimits, RegistryConfig } from './config/registry.config';
import { DatabaseChangesModule } from './database/database-changes.module';
import { DatabaseModule } from './database/database.module';
import { dataSourceOptions } from './database/data-source';
import { buildOpenApiDocument } from './openapi/openapi-document';
import { OPENAPI_DOCUMENT, SystemController } from './openapi/system.controller';
import { RegistryModule } from './registry/registry.module';
import { TelemetryModule } from './telemetry/telemetry.module';

@Module({})
export class AppModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ service: 'registry-api', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }),
        MetricsModule.forRoot({ service: 'registry-api', config }),
        TracingModule.forRoot({ service: 'registry-api', config }),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE, connectionLimits(config)),
          migrations: [],
        }),
        HealthModule.forRoot({
          service: 'registry-api',
          inject: [DataSource],
          probes: (dataSource: DataSource) => [postgresProbe((sql) => dataSource.query(sql))],
        }),
        ThrottlerModule.forRoot({
          throttlers: [{ name: 'default', ttl: 60_000, limit: Math.max(config.RATE_LIMIT_PER_MINUTE, 1) }],
          skipIf: () => config.RATE_LIMIT_PER_MINUTE === 0,
          // Not the default storage: it keeps a timer per hit and stalls the service under sustained load.
          storage: new MemoryRateLimitStorage(),
        }),
        DatabaseModule,
        DatabaseChangesModule.forRoot(config),
        TelemetryModule.forRoot(config),
        AuthModule.forRoot(config),
        RegistryModule.forRoot(config),
      ],
      controllers: [SystemController],
      providers: [
        { provide: RegistryConfig, useValue: config },
        { provide: OPENAPI_DOCUMENT, useValue: buildOpenApiDocument(apiBasePath(config)) },
        // Guards run in this order: who is calling, then how often they have called.
        { provide: APP_GUARD, useClass: ApiClientGuard },
        { provide: APP_GUARD, useClass: RateLimitGuard },
      ],
      exports: [RegistryConfig],
    };
  }
}
