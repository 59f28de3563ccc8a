import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { UssdDebugRecord, UssdSessionList } from '@dmrv/contracts';
import { strictValidationPipe } from '@dmrv/http-kit';
import { ApiOperatorAnswers } from '../contract/operator-api';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { OperatorSessionsService } from './operator-sessions.service';
import { SessionDebugView, SessionIdParameter, SessionListView } from './session-views';

@ApiTags('Operators')
@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OperatorsController {
  constructor(private readonly sessions: OperatorSessionsService) {}

  @Get('debug/:sessionId')
  @ApiOperation({
    operationId: 'debugSession',
    summary: 'One session as the store keeps it, and the active ones',
  })
  @ApiOperatorAnswers({ description: 'The session', type: SessionDebugView, dependency: 'The session store' })
  debug(@Param(strictValidationPipe()) { sessionId }: SessionIdParameter): Promise<UssdDebugRecord> {
    return this.sessions.debug(sessionId);
  }

  @Get('sessions')
  @ApiOperation({ operationId: 'listSessions', summary: 'The active sessions (at most 1000)' })
  @ApiOperatorAnswers({
    description: 'The active sessions',
    type: SessionListView,
    dependency: 'The session store',
    noInput: true,
  })
  list(): Promise<UssdSessionList> {
    return this.sessions.list();
  }
}
