import { join } from 'node:path';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@dmrv/config';
import { APP_GUARD } from '@nestjs/core';
import { ThrottlerModule } from '@nestjs/throttler';
import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HealthModule, postgresProbe } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { buildInfo, MetricsModule } from '@dmrv/metrics';
import { TracingModule } from '@dmrv/tracing';
import { ApiClientGuard } from './auth/api-client.guard';
import { AuthModule } from './auth/auth.module';
import { connectionLimits, RegistryConfig } from './config/registry.config';
import { DatabaseChangesModule } from './database/database-changes.module';
import { DatabaseModule } from './database/database.module';
import { dataSourceOptions } from './database/data-source';
import { SqlReader } from './database/sql-reader';
import { HelloController } from './hello/hello.controller';
import { OpenApiController, ServedOpenApiDocument } from './openapi/openapi.controller';
import { ClientRateLimitGuard } from './rate-limit/client-rate-limit.guard';
import { RegistryModule } from './registry/registry.module';
import { SigningKeys, signingKeysFrom } from './signing/signing-keys';
import { SigningModule } from './signing/signing.module';
import { TelemetryModule } from './telemetry/telemetry.module';

@Module({})
export class AppModule {
  static forRoot(config: RegistryConfig, signingKeys: SigningKeys = signingKeysFrom(config)): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(RegistryConfig, config),
        LoggingModule.forRoot({
          service: 'registry-api',
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
        }),
        MetricsModule.forRoot({ service: 'registry-api', config, build: buildInfo(join(__dirname, '..')) }),
        TracingModule.forRoot({ service: 'registry-api', config }),
        // A database that is down at start-up gets nine attempts 3 s apart, then the process exits (the default of
        // @nestjs/typeorm 11, stated because 12 raised it to ten).
        TypeOrmModule.forRoot({
          ...dataSourceOptions(config.DATABASE_URL, config.DATABASE_POOL_SIZE, connectionLimits(config)),
          migrations: [],
          retryAttempts: 9,
          retryDelay: 3000,
        }),
        HealthModule.forRoot({
          service: 'registry-api',
          inject: [DataSource, SqlReader],
          probes: (dataSource: DataSource, reader: SqlReader) =>
            reader.probes(postgresProbe((sql) => dataSource.query(sql))),
        }),
        ThrottlerModule.forRoot({
          throttlers: [{ name: 'default', ttl: 60_000, limit: Math.max(config.RATE_LIMIT_PER_MINUTE, 1) }],
          skipIf: () => config.RATE_LIMIT_PER_MINUTE === 0,
          // Not the default storage: it keeps a timer per hit and stalls the service under sustained load.
          storage: new MemoryRateLimitStorage(),
        }),
        DatabaseModule,
        DatabaseChangesModule,
        TelemetryModule,
        AuthModule,
        RegistryModule,
        SigningModule.forRoot(signingKeys, config.SIGNING_DISABLED),
      ],
      controllers: [HelloController, OpenApiController],
      providers: [
        ServedOpenApiDocument,
        // Guards run in this order: who is calling, then how often they have called.
        { provide: APP_GUARD, useClass: ApiClientGuard },
        { provide: APP_GUARD, useClass: ClientRateLimitGuard },
      ],
    };
  }
}
