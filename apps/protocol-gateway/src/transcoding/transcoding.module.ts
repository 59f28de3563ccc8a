import { Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { UnknownFieldReport } from './unknown-field-report';

/** What transcoding reports: `dmrv_protocol_unknown_fields_total{message,field}` (fields a newer node sends). */
@Module({
  providers: [
    {
      provide: UnknownFieldReport,
      inject: [Metrics],
      useFactory: (metrics: Metrics) => new UnknownFieldReport(metrics),
    },
  ],
  exports: [UnknownFieldReport],
})
export class TranscodingModule {}
