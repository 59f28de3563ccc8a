import { DynamicModule, Module, Type } from '@nestjs/common';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { OrdersModule } from '../orders/orders.module';
import { OpenApiDocumentController, OpenApiDocumentHolder } from './openapi-document.controller';
import { OperatorRecordsController } from './operator-records.controller';
import { OperatorRecordsService } from './operator-records.service';
import { OperatorSessionsService } from './operator-sessions.service';
import { OperatorsController } from './operators.controller';

/** The programme staff's endpoints: sessions, orders and tickets, behind OPERATOR_TOKEN. */
@Module({})
export class OperatorsModule {
  /** `sessions`: the module that exports the SessionStore (the ussd module, which this one cannot import). */
  static withSessions(sessions: Type): DynamicModule {
    return {
      module: OperatorsModule,
      imports: [sessions, OrdersModule],
      controllers: [OperatorsController, OperatorRecordsController, OpenApiDocumentController],
      providers: [OperatorRecordsService, OperatorSessionsService, OperatorTokenGuard, OpenApiDocumentHolder],
      exports: [OpenApiDocumentHolder],
    };
  }
}
