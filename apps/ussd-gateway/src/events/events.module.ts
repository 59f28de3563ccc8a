import { DynamicModule, Module, Type } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { SessionEventMetrics } from './session-event.metrics';
import { SessionEventSenderGuard } from './session-event-sender.guard';
import { SessionEventsController } from './session-events.controller';
import { SessionEventsRepository } from './session-events.repository';
import { SessionEventsService } from './session-events.service';

/** The aggregator's session-end notifications, and their list for operators. */
@Module({})
export class EventsModule {
  /** `sessions`: the module that exports SessionEndOpener (the ussd module, which this one cannot import). */
  static withSessions(sessions: Type): DynamicModule {
    return {
      module: EventsModule,
      imports: [sessions],
      controllers: [SessionEventsController],
      providers: [
        SessionEventsService,
        SessionEventsRepository,
        SessionEventSenderGuard,
        OperatorTokenGuard,
        {
          provide: SessionEventMetrics,
          inject: [Metrics],
          useFactory: (metrics: Metrics) => new SessionEventMetrics(metrics),
        },
      ],
    };
  }
}
