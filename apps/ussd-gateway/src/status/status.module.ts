import { DynamicModule, Module } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { HealthModule, postgresProbe } from '@dmrv/health';
import { UssdConfig } from '../config/ussd.config';
import { StatusController } from './status.controller';

/** The spec's `/` and `/health` records, backed by the shared readiness probes. */
@Module({})
export class StatusModule {
  static forRoot(config: UssdConfig): DynamicModule {
    return {
      module: StatusModule,
      imports: [
        HealthModule.forRoot({
          service: 'ussd-gateway',
          controller: false,
          inject: [DataSource],
          probes: (dataSource: DataSource) => [postgresProbe((sql) => dataSource.query(sql), 'database')],
        }),
      ],
      controllers: [StatusController],
      providers: [{ provide: UssdConfig, useValue: config }],
    };
  }
}
