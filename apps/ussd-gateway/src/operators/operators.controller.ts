import { Controller, Get, Inject, Param, UseGuards } from '@nestjs/common';
import { maxLength } from 'class-validator';
import type { UssdDebugRecord, UssdSessionList } from '@dmrv/contracts';
import { NotFoundError } from '@dmrv/errors';
import { isAuthenticated } from '../menus/menu-machine';
import { SESSION_STORE, SessionStore } from '../sessions/session-store';
import { OperatorTokenGuard } from './operator-token.guard';

/** Listing is capped: an operator wants to see sessions, not page through a million of them. */
export const SESSION_LIST_LIMIT = 1000;
export const SESSION_NOT_FOUND = 'Session expired or never started';

@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OperatorsController {
  constructor(@Inject(SESSION_STORE) private readonly store: SessionStore) {}

  @Get('debug/:sessionId')
  async debug(@Param('sessionId') sessionId: string): Promise<UssdDebugRecord> {
    // The same length rule as the session request (an emoji counts once), so every session that exists is found.
    const record = maxLength(sessionId, 100) ? await this.store.get(sessionId) : null;
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
      activeSessions: await this.store.listActive(SESSION_LIST_LIMIT),
    };
  }

  @Get('sessions')
  async sessions(): Promise<UssdSessionList> {
    const activeSessions = await this.store.listActive(SESSION_LIST_LIMIT);
    return { activeSessions, count: activeSessions.length };
  }
}
