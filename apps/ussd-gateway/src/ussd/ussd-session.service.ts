import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { Deadline } from '@dmrv/deadline';
import { DependencyUnavailableError, DomainError, InvalidInputError } from '@dmrv/errors';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { UssdConfig } from '../config/ussd.config';
import { RateLimitHit, RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import { runOnLease } from '../sessions/session-store';
import { HopAdmission } from './hop-admission';
import type { RequestCaller } from '../contract/request-caller';
import { HopMetrics } from './hop-metrics';
import { HopOpener } from './hop-opener';
import type { HopResult } from './hop-replay';
import { SessionHop } from './session-hop';
import { parseUssdRequest } from './ussd-request';

type HopAnswer = HopResult['value'];

class HopTimeoutError extends Error {
  constructor(ms: number) {
    super(`session hop did not finish within ${ms} ms`);
    this.name = 'HopTimeoutError';
  }
}

/**
 * One hop of a session: count it, load the session, work out what is new in the cumulative `text`, run the menu
 * machine (performing the account work it asks for before answering), save, answer, all within the hop budget.
 * Hops of one session are serialised by the store's lock; a hop that fails saves nothing, so the subscriber's retry
 * after an outage continues where the session stood. The hop itself is SessionHop's; this is its budget, its
 * counts and its failures.
 */
@Injectable()
export class UssdSessionService {
  /** Worked out once, not on every hop: the configuration does not change while the service runs. */
  private readonly lockWaitMs: number;

  constructor(
    private readonly opener: HopOpener,
    private readonly sessionHop: SessionHop,
    private readonly admission: HopAdmission,
    private readonly limits: RateLimitPolicy,
    private readonly config: UssdConfig,
    private readonly metrics: HopMetrics,
    @InjectPinoLogger(UssdSessionService.name) private readonly logger: PinoLogger,
  ) {
    this.lockWaitMs = dependencyTimeouts(config.HOP_TIMEOUT_MS).sessionLockWaitMs;
  }

  /**
   * Every request is counted against its rate limit, valid or not; a refused one gets the limit's answer whatever
   * its body. A valid hop is counted by the hop opener in the round trip that takes the session's lock.
   */
  async handle(body: unknown, caller: RequestCaller): Promise<string> {
    const parsed = parseUssdRequest(body);
    const hit = this.limits.sessionHit(caller.ip, (body as { phoneNumber?: unknown } | null)?.phoneNumber);
    if (!parsed.valid) {
      await this.admission.countAlone(hit, caller);
      this.metrics.hopFailed('invalid');
      throw new InvalidInputError(`invalid session request: ${parsed.invalidFields.join(', ')}`);
    }
    const { request } = parsed;
    const budget = this.config.HOP_TIMEOUT_MS;
    let hop: Promise<HopAnswer> | undefined;
    try {
      // At the deadline the hop answers "unavailable", and the aborted deadline stops whatever it is still doing
      // from writing anything.
      const answer = await Deadline.run((deadline) => (hop = this.run(request, hit, caller, deadline)), {
        ms: budget,
        what: 'the hop',
        error: () => new HopTimeoutError(budget),
      });
      this.metrics.hop(answer.report);
      return answer.reply;
    } catch (error) {
      if (error instanceof HopTimeoutError && hop) this.reportWhenSettled(hop, request.sessionId);
      throw this.failed(error, request.sessionId);
    }
  }

  /** What a failed hop throws: a domain error as it is, anything else as "unavailable", logged. */
  private failed(error: unknown, sessionId: string): Error {
    if (error instanceof InvalidInputError) this.metrics.hopFailed('invalid');
    if (error instanceof DomainError) return error;
    this.metrics.hopFailed('unavailable');
    // Redis, PostgreSQL, a time-out or a busy lock: the subscriber sees the unavailable text, the log the cause
    // (the request id is added by the request-bound logger).
    this.logger.error(
      { err: error, sessionId: sessionId.slice(0, 100) },
      'session hop failed: a dependency is unavailable',
    );
    return new DependencyUnavailableError('session dependencies', error);
  }

  private async run(
    request: UssdSessionRequest,
    hit: RateLimitHit,
    caller: RequestCaller,
    deadline: Deadline,
  ): Promise<HopAnswer> {
    const sessionHit = this.limits.perSessionHit(request.sessionId, request.phoneNumber);
    const { count, sessionCount, lease, phoneLanguage } = await this.opener.open(request.sessionId, {
      waitMs: this.lockWaitMs,
      hit,
      sessionHit,
      signal: deadline,
      phoneNumber: request.phoneNumber,
    });
    this.admission.admit(hit, count, caller);
    if (sessionCount) this.admission.admit(sessionHit, sessionCount, caller);
    if (!lease) throw new Error('the hop opener gave no lease for an admitted hop');
    return runOnLease(lease, this.config.SESSION_TTL_SECONDS, (existing) =>
      this.sessionHop.run(request, existing, deadline, phoneLanguage),
    );
  }

  /** A hop that outlived its budget: said once it ends, so an operator can tell a slow dependency from a dead one. */
  private reportWhenSettled(hop: Promise<unknown>, sessionId: string): void {
    const report = (error?: unknown): void =>
      this.logger.warn(
        { err: error, sessionId: sessionId.slice(0, 100) },
        'session hop finished after its deadline: nothing of it was saved',
      );
    hop.then(() => report(), report);
  }
}
