import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { Deadline } from '@dmrv/deadline';
import { DependencyUnavailableError, DomainError, InvalidInputError } from '@dmrv/errors';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { AccountsService } from '../accounts/accounts.service';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { UssdConfig } from '../config/ussd.config';
import { CountryLanguages, languageOfPhone } from '../menus/country-languages';
import { MenuRenderer } from '../menus/menu-renderer';
import { afterStep, heldToPinVersion, initialState, isEnded, lockedOut } from '../menus/menu-machine';
import { RateLimitCounter } from '../rate-limit/rate-limit.module';
import { RateLimitMetrics } from '../rate-limit/rate-limit.metrics';
import { RateLimitHit, RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import type { PhoneLanguageCopy } from '../phone-languages/phone-language-copy';
import { MAX_REMEMBERED_REPLIES, runOnLease } from '../sessions/session-store';
import { ConsumedMark, deriveNewInputs, markOf } from './cumulative-text';
import { HopEffects } from './hop-effects';
import { HopMetrics, HopReport, sessionOutcomeOf } from './hop-metrics';
import { HopOpener, UssdSessionRecord } from './hop-opener';
import { PhoneLanguages } from './phone-languages';
import { SessionDigests } from './session-digests';
import { parseUssdRequest } from './ussd-request';

export const OUT_OF_STEP_REPLY = 'END This session is out of step. Please dial again.';
export const ENDED_REPLY = 'END This session has ended. Please dial again.';

/** The sender of a hop, as far as its rate limit is concerned. */
export interface HopCaller {
  /** The client address (X-Forwarded-For only from trusted proxies). */
  ip: string | undefined;
  setHeaders(headers: Record<string, string>): void;
}

interface HopAnswer {
  reply: string;
  report: HopReport;
}

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
 * after an outage continues where the session stood.
 */
@Injectable()
export class UssdSessionService {
  /** Worked out once, not on every hop: the configuration does not change while the service runs. */
  private readonly lockWaitMs: number;
  /** A new session has consumed the empty text; its keyed digest is the same for every dial. */
  private readonly nothingConsumed: ConsumedMark;

  constructor(
    private readonly opener: HopOpener,
    private readonly renderer: MenuRenderer,
    private readonly effects: HopEffects,
    private readonly digests: SessionDigests,
    private readonly accounts: AccountsService,
    private readonly config: UssdConfig,
    private readonly limits: RateLimitPolicy,
    private readonly counter: RateLimitCounter,
    @InjectPinoLogger(UssdSessionService.name) private readonly logger: PinoLogger,
    private readonly metrics: HopMetrics,
    private readonly refusals: RateLimitMetrics,
    private readonly countryLanguages: CountryLanguages,
    private readonly phoneLanguages: PhoneLanguages,
  ) {
    this.lockWaitMs = dependencyTimeouts(config.HOP_TIMEOUT_MS).sessionLockWaitMs;
    this.nothingConsumed = markOf('', digests.text);
  }

  /**
   * Every request is counted against its rate limit, valid or not; a refused one gets the limit's answer whatever
   * its body. A valid hop is counted by the hop opener in the round trip that takes the session's lock.
   */
  async handle(body: unknown, caller: HopCaller): Promise<string> {
    const parsed = parseUssdRequest(body);
    const hit = this.limits.sessionHit(caller.ip, (body as { phoneNumber?: unknown } | null)?.phoneNumber);
    if (!parsed.valid) {
      this.admit(hit, await this.counter.count(hit), caller);
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
      if (error instanceof InvalidInputError) this.metrics.hopFailed('invalid');
      if (error instanceof DomainError) throw error;
      this.metrics.hopFailed('unavailable');
      // Redis, PostgreSQL, a time-out or a busy lock: the subscriber sees the unavailable text, the log the cause
      // (the request id is added by the request-bound logger).
      this.logger.error(
        { err: error, sessionId: request.sessionId.slice(0, 100) },
        'session hop failed: a dependency is unavailable',
      );
      throw new DependencyUnavailableError('session dependencies', error);
    }
  }

  /** The limit's headers on every answer; a count past the limit is refused with the limit's answer. */
  private admit(hit: RateLimitHit, count: RateLimitCount, caller: HopCaller): void {
    caller.setHeaders(this.limits.headers(hit, count));
    if (count.isBlocked) {
      this.refusals.rateLimited(hit.name);
      this.metrics.hopFailed('rate_limited');
      throw this.limits.refusal(hit);
    }
  }

  private async run(
    request: UssdSessionRequest,
    hit: RateLimitHit,
    caller: HopCaller,
    deadline: Deadline,
  ): Promise<HopAnswer> {
    const waitMs = this.lockWaitMs;
    const sessionHit = this.limits.perSessionHit(request.sessionId, request.phoneNumber);
    const { count, sessionCount, lease, phoneLanguage } = await this.opener.open(request.sessionId, {
      waitMs,
      hit,
      sessionHit,
      signal: deadline,
      phoneNumber: request.phoneNumber,
    });
    this.admit(hit, count, caller);
    if (sessionCount) this.admit(sessionHit, sessionCount, caller);
    if (!lease) throw new Error('the hop opener gave no lease for an admitted hop');
    return runOnLease(lease, this.config.SESSION_TTL_SECONDS, (existing) =>
      this.hop(request, existing, deadline, phoneLanguage),
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

  private async hop(
    request: UssdSessionRequest,
    existing: UssdSessionRecord | null,
    deadline: Deadline,
    phoneLanguage: PhoneLanguageCopy | undefined,
  ): Promise<{ value: HopAnswer; save?: UssdSessionRecord }> {
    if (existing && existing.phoneNumber !== request.phoneNumber) {
      throw new InvalidInputError('sessionId belongs to another phone number');
    }
    const textDigest = this.digests.text(request.text);
    const remembered = existing?.replies.find((entry) => entry.textDigest === textDigest);
    if (existing && remembered) {
      // A retry: same answer, nothing applied twice; the session's clock still restarts.
      return {
        value: {
          reply: remembered.reply,
          report: {
            outcome: 'replay',
            screen: existing.state.screen,
            language: existing.state.language,
            started: false,
          },
        },
        save: existing.status === 'active' ? existing : undefined,
      };
    }
    if (existing?.status === 'ended') {
      return {
        value: { reply: ENDED_REPLY, report: { outcome: 'after_end', screen: 'ended', started: false } },
      };
    }

    const derived = deriveNewInputs(existing ? existing.consumed : null, request.text, this.digests.text);
    // Whoever sent it (the aggregator lost track, or someone who knows the session id and phone number), a text
    // that does not continue the session is answered and changes nothing: the subscriber can still go on.
    if (derived.kind === 'outOfStep') {
      const report: HopReport = {
        outcome: 'out_of_step',
        screen: existing?.state.screen ?? 'none',
        language: existing?.state.language,
        started: false,
      };
      return { value: { reply: OUT_OF_STEP_REPLY, report } };
    }

    const now = new Date().toISOString();
    const record: UssdSessionRecord = existing ?? {
      sessionId: request.sessionId,
      phoneNumber: request.phoneNumber,
      serviceCode: request.serviceCode,
      state: initialState(existing ? undefined : await this.languageOf(request.phoneNumber, phoneLanguage)),
      consumed: this.nothingConsumed,
      status: 'active',
      replies: [],
      createdAt: now,
      updatedAt: now,
    };
    let state = record.state;
    let pinVersion: number | null = null;
    if (state.auth && derived.inputs.length > 0) {
      // Since this session signed in, another one's wrong PINs may have locked the account, or another one may have
      // changed its PIN (whoever knew the old one is signed out with it, on every screen it reaches: afterStep).
      const standing = await this.accounts.signedInStanding(state.auth.customerId);
      pinVersion = standing.pinVersion;
      if (standing.lockMinutes > 0) state = lockedOut(standing.lockMinutes, state.language);
      else state = heldToPinVersion(state, pinVersion, derived.inputs[0]?.value);
    }
    for (const input of derived.inputs) {
      if (isEnded(state)) break;
      const next = await this.effects.apply(state, input.value, {
        request,
        through: input.through,
        deadline,
      });
      ({ state, standing: pinVersion } = afterStep(state, next, pinVersion));
    }
    const screen = this.renderer.render(state);
    const reply = `${screen.kind} ${screen.text}`;
    const report: HopReport = {
      outcome: screen.kind === 'CON' ? 'continue' : 'end',
      screen: state.screen,
      language: state.language,
      started: existing === null,
      ended: isEnded(state) ? sessionOutcomeOf(state.farewell) : undefined,
    };
    return {
      value: { reply, report },
      save: {
        ...record,
        state,
        consumed: { length: request.text.length, digest: textDigest },
        status: isEnded(state) ? 'ended' : 'active',
        replies: [...record.replies, { textDigest, reply }].slice(-MAX_REMEMBERED_REPLIES),
        updatedAt: now,
      },
    };
  }

  /**
   * The language a new session opens in: the one last chosen on this phone (the language copy, read with the session,
   * else PostgreSQL), else its country code's. A database that cannot say only costs the remembered choice (logged),
   * never the dial: the main menu needs no database.
   */
  private async languageOf(phoneNumber: string, copy: PhoneLanguageCopy | undefined): Promise<string> {
    try {
      const chosen = await this.phoneLanguages.chosen(phoneNumber, copy);
      if (chosen && this.renderer.languageCodes.includes(chosen)) return chosen;
    } catch (error) {
      this.logger.warn({ err: error }, 'the remembered language could not be read: the country code decides');
    }
    return languageOfPhone(phoneNumber, this.countryLanguages);
  }
}
