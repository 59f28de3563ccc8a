import { Injectable } from '@nestjs/common';
import { withDeadline } from '@dmrv/deadline';
import { DependencyUnavailableError, DomainError, InvalidInputError } from '@dmrv/errors';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { UssdConfig } from '../config/ussd.config';
import type { RequestCaller } from '../contract/request-caller';
import type { MenuState } from '../menus/menu-machine';
import { RateLimitCounter } from '../rate-limit/rate-limit.module';
import { RateLimitHit, RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import { runOnLease } from '../sessions/session-store';
import { SessionEndOpener } from './session-end-opener';
import { parseSessionEvent, SessionEndEvent } from './session-event';
import { SessionEventMetrics } from './session-event.metrics';
import { eventFilterOf, encodeCursor, SessionEventListQuery } from './session-event-list-query';
import { SessionEventRecord, SessionEventsRepository } from './session-events.repository';
import { RateLimitMetrics } from '../rate-limit/rate-limit.metrics';

export interface SessionEventList {
  events: SessionEventRecord[];
  nextCursor: string | null;
}

export const SESSION_EVENTS_DEPENDENCY = 'session event store';
export const SESSION_EVENT_MISMATCH_MESSAGE = 'The session belongs to another phone number';

/** A notification naming another phone than the session's: kept nowhere, so it cannot take the session's record. */
export class SessionEventMismatchError extends DomainError {
  constructor() {
    super('SESSION_EVENT_MISMATCH', SESSION_EVENT_MISMATCH_MESSAGE, 409);
  }
}

/**
 * The aggregator's session-end notification: the session is closed here (a late hop of it is told it has ended),
 * the outcome kept for operators and counted. Keeping it is what matters: a session store that cannot be reached
 * leaves the session to expire on its own, while a database that cannot is a 503, so that the aggregator may send
 * the notification again. Counted under the session endpoint's rate-limit policy (per IP, or per phone for exempt
 * aggregator addresses), a valid one in the round trip that locks its session, as a hop is.
 */
@Injectable()
export class SessionEventsService {
  constructor(
    private readonly opener: SessionEndOpener,
    private readonly repository: SessionEventsRepository,
    private readonly config: UssdConfig,
    private readonly limits: RateLimitPolicy,
    private readonly counter: RateLimitCounter,
    private readonly metrics: SessionEventMetrics,
    private readonly rateLimitMetrics: RateLimitMetrics,
    @InjectPinoLogger(SessionEventsService.name) private readonly logger: PinoLogger,
  ) {}

  async receive(body: unknown, caller: RequestCaller): Promise<'recorded' | 'duplicate'> {
    const parsed = parseSessionEvent(body);
    const hit = this.limits.sessionHit(caller.ip, (body as { phoneNumber?: unknown } | null)?.phoneNumber);
    if (!parsed.valid) {
      this.admit(hit, await this.counter.count(hit), caller);
      this.metrics.refused();
      throw new InvalidInputError(`Invalid session event: ${parsed.invalidFields.join(', ')}`);
    }
    const event = parsed.event;
    const closed = await this.close(event, hit, caller);
    if (closed === 'otherPhone') {
      this.metrics.received(event.status, 'other_phone', null);
      throw new SessionEventMismatchError();
    }
    let recorded: boolean;
    try {
      recorded = await this.repository.record(event, closed);
    } catch (error) {
      throw new DependencyUnavailableError(SESSION_EVENTS_DEPENDENCY, error);
    }
    this.metrics.received(
      event.status,
      recorded ? (closed ? 'closed' : 'not_open') : 'duplicate',
      event.durationInMillis,
    );
    this.logger.info(
      {
        sessionId: event.sessionId,
        status: event.status,
        hopsCount: event.hopsCount,
        durationInMillis: event.durationInMillis,
        sessionClosed: closed,
        duplicate: !recorded,
      },
      'session end reported',
    );
    return recorded ? 'recorded' : 'duplicate';
  }

  async list(query: SessionEventListQuery): Promise<SessionEventList> {
    let page;
    try {
      page = await this.repository.list(eventFilterOf(query));
    } catch (error) {
      throw new DependencyUnavailableError(SESSION_EVENTS_DEPENDENCY, error);
    }
    return {
      events: page.events,
      nextCursor: page.nextCursor === null ? null : encodeCursor(page.nextCursor),
    };
  }

  /** The limit's headers on every answer; past the limit, the limit's answer (a 429 `{message}`: no handset reads it). */
  private admit(hit: RateLimitHit, count: RateLimitCount, caller: RequestCaller): void {
    caller.setHeaders(this.limits.headers(hit, count));
    if (count.isBlocked) {
      this.rateLimitMetrics.rateLimited(hit.name);
      throw this.limits.refusal(hit);
    }
  }

  /**
   * Under the session's lock, as a hop would: a hop in flight finishes first, and one after it finds the session
   * ended. Only the session's own phone number closes it; a notification naming another phone than a session kept
   * here (open or ended) is `otherPhone`, and is not kept either: it must never become that session's record.
   */
  private async close(
    event: SessionEndEvent,
    hit: RateLimitHit,
    caller: RequestCaller,
  ): Promise<boolean | 'otherPhone'> {
    const budget = this.config.HOP_TIMEOUT_MS;
    try {
      return await withDeadline(
        async (signal) => {
          const sessionHit = this.limits.perSessionHit(event.sessionId, event.phoneNumber);
          const waitMs = dependencyTimeouts(budget).sessionLockWaitMs;
          const { count, sessionCount, lease } = await this.opener.open(event.sessionId, {
            waitMs,
            hit,
            sessionHit,
            signal,
          });
          this.admit(hit, count, caller);
          if (sessionCount) this.admit(sessionHit, sessionCount, caller);
          if (!lease) throw new Error('the hop opener gave no lease for an admitted request');
          return runOnLease<boolean | 'otherPhone', MenuState>(
            lease,
            this.config.SESSION_TTL_SECONDS,
            async (record) => {
              if (record && record.phoneNumber !== event.phoneNumber) return { value: 'otherPhone' };
              if (record?.status !== 'active') return { value: false };
              return {
                value: true,
                save: { ...record, status: 'ended', updatedAt: new Date().toISOString() },
              };
            },
          );
        },
        { ms: budget, what: 'closing the session' },
      );
    } catch (error) {
      if (error instanceof DomainError) throw error;
      this.logger.warn(
        { err: error, sessionId: event.sessionId },
        'session end reported, but the session could not be closed: it expires on its own',
      );
      return false;
    }
  }
}
