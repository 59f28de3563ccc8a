import { Injectable } from '@nestjs/common';
import type { UssdDebugRecord, UssdSessionList } from '@dmrv/contracts';
import { DependencyUnavailableError, NotFoundError } from '@dmrv/errors';
import { isSessionId } from '../contract/ussd-fields';
import { isAuthenticated, MenuState } from '../menus/menu-machine';
import { SessionStore } from '../sessions/session-store';

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

/** The sessions as operators see them: never the state (it holds the sealed new PIN of a flow in progress). */
@Injectable()
export class OperatorSessionsService {
  constructor(private readonly store: SessionStore<MenuState>) {}

  async debug(sessionId: string): Promise<UssdDebugRecord> {
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
          // The screen text only.
          message: last.replace(/^(CON|END) /, ''),
          isAuthenticated: isAuthenticated(record.state),
        },
        status: record.status,
      },
      activeSessions: await fromStore(this.store.listActive(SESSION_LIST_LIMIT)),
    };
  }

  async list(): Promise<UssdSessionList> {
    const activeSessions = await fromStore(this.store.listActive(SESSION_LIST_LIMIT));
    return { activeSessions, count: activeSessions.length };
  }
}
