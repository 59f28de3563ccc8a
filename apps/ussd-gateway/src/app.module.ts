import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggingModule } from '@dmrv/logging';
import { UssdConfig } from './config/ussd.config';
import { StatusModule } from './status/status.module';

@Module({})
export class AppModule {
  static forRoot(config: UssdConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        LoggingModule.forRoot({
          service: 'ussd-gateway',
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
          redact: ['req.body', 'req.query'],
        }),
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.DATABASE_URL,
          extra: { max: config.DATABASE_POOL_SIZE, connectionTimeoutMillis: 3000 },
          synchronize: false,
          migrationsRun: false,
          autoLoadEntities: true,
        }),
        StatusModule.forRoot(config),
      ],
      providers: [{ provide: UssdConfig, useValue: config }],
      exports: [UssdConfig],
    };
  }
}
