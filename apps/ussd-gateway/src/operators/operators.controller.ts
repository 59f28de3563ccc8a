import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import type { UssdDebugRecord, UssdSessionList } from '@dmrv/contracts';
import { DependencyUnavailableError, NotFoundError } from '@dmrv/errors';
import { strictValidationPipe } from '@dmrv/http-kit';
import { ApiOperatorAnswers } from '../contract/operator-api';
import { OperatorTokenGuard } from '../contract/operator-token.guard';
import { isSessionId } from '../contract/ussd-fields';
import { isAuthenticated, MenuState } from '../menus/menu-machine';
import { SessionStore } from '../sessions/session-store';
import { SessionDebugView, SessionIdParameter, SessionListView } from './session-views';

/** Listing is capped: an operator wants to see sessions, not page through a million of them. */
export const SESSION_LIST_LIMIT = 1000;
export const SESSION_NOT_FOUND = 'Session expired or never started';
export const SESSION_STORE_DEPENDENCY = 'session store';

/** A store that cannot answer is a 503 (the error renderer words it), never a 500 with a driver error behind it. */
async function fromStore<T>(read: Promise<T>): Promise<T> {
  try {
    return await read;
  } catch (error) {
    throw new DependencyUnavailableError(SESSION_STORE_DEPENDENCY, error);
  }
}

@ApiTags('Operators')
@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OperatorsController {
  constructor(private readonly store: SessionStore<MenuState>) {}

  @Get('debug/:sessionId')
  @ApiOperation({
    operationId: 'debugSession',
    summary: 'One session as the store keeps it, and the active ones',
  })
  @ApiOperatorAnswers({ description: 'The session', type: SessionDebugView, dependency: 'The session store' })
  async debug(@Param(strictValidationPipe()) { sessionId }: SessionIdParameter): Promise<UssdDebugRecord> {
    // The session request's own rule (an emoji counts once): every session that can exist is looked up, nothing else.
    const record = isSessionId(sessionId) ? await fromStore(this.store.get(sessionId)) : null;
    if (!record) throw new NotFoundError(SESSION_NOT_FOUND);
    const last = record.replies[record.replies.length - 1]?.reply ?? '';
    return {
      sessionId: record.sessionId,
      debugInfo: {
        state: record.state.screen,
        context: {
          sessionId: record.sessionId,
          phoneNumber: record.phoneNumber,
          // The screen text only; the state (which holds the encrypted new PIN of a flow in progress) is never shown.
          message: last.replace(/^(CON|END) /, ''),
          isAuthenticated: isAuthenticated(record.state),
        },
        status: record.status,
      },
      activeSessions: await fromStore(this.store.listActive(SESSION_LIST_LIMIT)),
    };
  }

  @Get('sessions')
  @ApiOperation({ operationId: 'listSessions', summary: 'The active sessions (at most 1000)' })
  @ApiOperatorAnswers({
    description: 'The active sessions',
    type: SessionListView,
    dependency: 'The session store',
    noInput: true,
  })
  async sessions(): Promise<UssdSessionList> {
    const activeSessions = await fromStore(this.store.listActive(SESSION_LIST_LIMIT));
    return { activeSessions, count: activeSessions.length };
  }
}
