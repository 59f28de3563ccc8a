import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { HealthModule, postgresProbe } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { RegistryConfig } from './config/registry.config';

@Module({})
export class AppModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({ service: 'registry-api', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY }),
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.DATABASE_URL,
          extra: { max: config.DATABASE_POOL_SIZE, connectionTimeoutMillis: 5000 },
          synchronize: false,
          migrationsRun: false,
          autoLoadEntities: true,
        }),
        HealthModule.forRoot({
          service: 'registry-api',
          inject: [DataSource],
          probes: (dataSource: DataSource) => [postgresProbe((sql) => dataSource.query(sql))],
        }),
      ],
      providers: [{ provide: RegistryConfig, useValue: config }],
      exports: [RegistryConfig],
    };
  }
}
