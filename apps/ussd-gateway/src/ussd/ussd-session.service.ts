import { createHmac, hkdfSync } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { DependencyUnavailableError, DomainError, InvalidInputError } from '@dmrv/errors';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import { AccountsService } from '../accounts/accounts.service';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import { UssdConfig } from '../config/ussd.config';
import { MenuRenderer } from '../menus/menu-renderer';
import { applyEffectResult, applyInput, Effect, EffectResult, initialState, isEnded, lockedOut, MenuState } from '../menus/menu-machine';
import { MAX_REMEMBERED_REPLIES, SESSION_STORE, SessionRecord, SessionStore } from '../sessions/session-store';
import { parseKey } from '../accounts/pin-vault';
import { RATE_LIMIT_STORAGE } from '../rate-limit/rate-limit.module';
import { RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
import { HopReport, sessionOutcomeOf, UssdMetrics } from '../telemetry/ussd-metrics';
import { deriveNewInputs, markOf } from './cumulative-text';
import { parseUssdRequest } from './ussd-request';

export const MENU_RENDERER = Symbol('MENU_RENDERER');
export const OUT_OF_STEP_REPLY = 'END This session is out of step. Please dial again.';
export const ENDED_REPLY = 'END This session has ended. Please dial again.';

/** The sender of a hop, as far as its rate limit is concerned. */
export interface HopCaller {
  /** The client address (X-Forwarded-For only from trusted proxies). */
  ip: string | undefined;
  setHeaders(headers: Record<string, string>): void;
}

/** What an effect needs besides itself: the request, where its input ends in `text`, the hop's deadline. */
interface EffectContext {
  request: UssdSessionRequest;
  through: number;
  signal: AbortSignal;
}

class HopTimeoutError extends Error {
  constructor(ms: number) {
    super(`session hop did not finish within ${ms} ms`);
    this.name = 'HopTimeoutError';
  }
}

/**
 * One hop of a session: load, work out what is new in the cumulative `text`, run the menu machine (performing the
 * account work it asks for before answering), save, answer. Hops of one session are serialised by the store's lock;
 * a hop that fails saves nothing, so the subscriber's retry after an outage continues where the session stood.
 */
@Injectable()
export class UssdSessionService {
  /**
   * Keyed, so the digests in the store cannot be brute-forced back to the PINs inside `text` (five digits are only
   * 100 000 guesses) by anyone without the key.
   */
  private readonly digestKey: Buffer;

  constructor(
    @Inject(SESSION_STORE) private readonly store: SessionStore,
    @Inject(MENU_RENDERER) private readonly renderer: MenuRenderer,
    private readonly accounts: AccountsService,
    private readonly config: UssdConfig,
    private readonly limits: RateLimitPolicy,
    @Inject(RATE_LIMIT_STORAGE) private readonly counter: ThrottlerStorage,
    @InjectPinoLogger(UssdSessionService.name) private readonly logger: PinoLogger,
    private readonly metrics: UssdMetrics,
  ) {
    this.digestKey = Buffer.from(hkdfSync('sha256', parseKey(config.PIN_ENCRYPTION_KEY), 'ussd-session', 'cumulative-text digest', 32));
  }

  private readonly digest = (text: string): string => createHmac('sha256', this.digestKey).update(text).digest('base64url');

  /**
   * Every request is counted against its rate limit, valid or not; a refused one gets the limit's answer whatever
   * its body. A valid hop is counted by the session store in the round trip that takes the session's lock.
   */
  async handle(body: unknown, caller: HopCaller): Promise<string> {
    const parsed = parseUssdRequest(body);
    const hit = this.limits.sessionHit(caller.ip, (body as { phoneNumber?: unknown } | null)?.phoneNumber);
    const admit = (count: RateLimitCount): void => {
      caller.setHeaders(this.limits.headers(hit, count));
      if (count.isBlocked) {
        this.metrics.rateLimited(hit.name);
        this.metrics.hopFailed('rate_limited');
        throw this.limits.refusal(hit);
      }
    };
    if (!parsed.valid) {
      admit(await this.counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs, hit.name));
      this.metrics.hopFailed('invalid');
      throw new InvalidInputError(`invalid session request: ${parsed.invalidFields.join(', ')}`);
    }
    const request = parsed.request;
    const budget = this.config.HOP_TIMEOUT_MS;
    // Aborted when the budget is spent: the hop answers "unavailable" and whatever it is still doing writes nothing.
    const deadline = new AbortController();
    const hop = this.store.withSession(
      request.sessionId,
      {
        waitMs: dependencyTimeouts(budget).sessionLockWaitMs,
        ttlSeconds: this.config.SESSION_TTL_SECONDS,
        rateLimit: { hit, admit },
        signal: deadline.signal,
      },
      (existing) => this.hop(request, existing, deadline.signal),
    );
    let timer: NodeJS.Timeout | undefined;
    try {
      const answer = await Promise.race([
        hop,
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => {
            const timeout = new HopTimeoutError(budget);
            deadline.abort(timeout);
            reject(timeout);
          }, budget);
        }),
      ]);
      this.metrics.hop(answer.report);
      return answer.reply;
    } catch (error) {
      if (deadline.signal.aborted) this.reportWhenSettled(hop, request.sessionId);
      if (error instanceof InvalidInputError) this.metrics.hopFailed('invalid');
      if (error instanceof DomainError) throw error;
      this.metrics.hopFailed('unavailable');
      // Redis, PostgreSQL, a time-out or a busy lock: the subscriber sees the unavailable text, the log the cause
      // (the request id is added by the request-bound logger).
      this.logger.error({ err: error, sessionId: request.sessionId.slice(0, 100) }, 'session hop failed: a dependency is unavailable');
      throw new DependencyUnavailableError('session dependencies', error);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A hop that outlived its budget: said once it ends, so an operator can tell a slow dependency from a dead one. */
  private reportWhenSettled(hop: Promise<unknown>, sessionId: string): void {
    const report = (error?: unknown): void =>
      this.logger.warn({ err: error, sessionId: sessionId.slice(0, 100) }, 'session hop finished after its deadline: nothing of it was saved');
    hop.then(() => report(), report);
  }

  private async hop(
    request: UssdSessionRequest,
    existing: SessionRecord | null,
    signal: AbortSignal,
  ): Promise<{ value: { reply: string; report: HopReport }; save?: SessionRecord }> {
    if (existing && existing.phoneNumber !== request.phoneNumber) {
      throw new InvalidInputError('sessionId belongs to another phone number');
    }
    const textDigest = this.digest(request.text);
    const remembered = existing?.replies.find((entry) => entry.textDigest === textDigest);
    if (existing && remembered) {
      // A retry: same answer, nothing applied twice; the session's clock still restarts.
      return {
        value: { reply: remembered.reply, report: { outcome: 'replay', screen: existing.state.screen, started: false } },
        save: existing.status === 'active' ? existing : undefined,
      };
    }
    if (existing?.status === 'ended') {
      return { value: { reply: ENDED_REPLY, report: { outcome: 'after_end', screen: 'ended', started: false } } };
    }

    const derived = deriveNewInputs(existing ? existing.consumed : null, request.text, this.digest);
    // Whoever sent it (the aggregator lost track, or someone who knows the session id and phone number), a text
    // that does not continue the session is answered and changes nothing: the subscriber can still go on.
    if (derived.kind === 'outOfStep') {
      const report: HopReport = { outcome: 'out_of_step', screen: existing?.state.screen ?? 'none', started: false };
      return { value: { reply: OUT_OF_STEP_REPLY, report } };
    }

    const now = new Date().toISOString();
    const record: SessionRecord = existing ?? {
      sessionId: request.sessionId,
      phoneNumber: request.phoneNumber,
      serviceCode: request.serviceCode,
      state: initialState(),
      consumed: markOf('', this.digest),
      status: 'active',
      replies: [],
      createdAt: now,
      updatedAt: now,
    };
    let state = record.state;
    if (state.auth && derived.inputs.length > 0) {
      // Another session's wrong PINs may have locked the account since this one signed in.
      const minutes = await this.accounts.lockMinutesLeft(state.auth.customerId);
      if (minutes > 0) state = lockedOut(minutes);
    }
    for (const input of derived.inputs) {
      if (isEnded(state)) break;
      state = await this.apply(state, input.value, { request, through: input.through, signal });
    }
    const screen = this.renderer.render(state);
    const reply = `${screen.kind} ${screen.text}`;
    const report: HopReport = {
      outcome: screen.kind === 'CON' ? 'continue' : 'end',
      screen: state.screen,
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

  private async apply(state: MenuState, input: string, context: EffectContext): Promise<MenuState> {
    let step = applyInput(state, input, this.renderer);
    while (step.effect) step = applyEffectResult(step.state, await this.perform(step.effect, context));
    return step.state;
  }

  /**
   * The idempotency key of `effect` asked for by the input that ends at `through`: the session, its phone number and
   * the whole text up to that input. A replay of the hop (the aggregator's retry after a failure) has the same key
   * and finds what the first run did; anyone else needs the exact text, PINs included. Keyed with the digest key, so
   * the stored value says nothing about the PINs in the text.
   */
  private effectKey(effect: Effect, { request, through }: EffectContext): string {
    return createHmac('sha256', this.digestKey)
      .update(`effect\u0000${effect.type}\u0000${request.sessionId}\u0000${request.phoneNumber}\u0000${request.text.slice(0, through)}`)
      .digest('base64url');
  }

  private async perform(effect: Effect, context: EffectContext): Promise<EffectResult> {
    const { request, signal } = context;
    switch (effect.type) {
      case 'holdPin':
        return { type: 'held', heldPin: this.accounts.hold(effect.pin) };
      case 'matchPin':
        return { type: 'matched', match: await this.accounts.matches(effect.pin, effect.heldPin) };
      case 'createAccount':
        return {
          type: 'created',
          customerId: await this.accounts.create(
            { phoneNumber: request.phoneNumber, fullName: effect.fullName, email: effect.email, heldPin: effect.heldPin },
            this.effectKey(effect, context),
            signal,
          ),
        };
      case 'verifyPin': {
        const attempt = { key: this.effectKey(effect, context), sessionId: request.sessionId, phoneNumber: request.phoneNumber };
        const outcome = await this.accounts.verify(effect.customerId, effect.pin, attempt, signal);
        this.metrics.pinVerified(outcome);
        return { type: 'verified', outcome };
      }
      case 'loadAccount':
        return { type: 'loaded', account: await this.accounts.details(effect.customerId) };
      case 'replacePin':
        await this.accounts.replacePin(effect.customerId, effect.heldPin, this.effectKey(effect, context), signal);
        return { type: 'replaced' };
    }
  }
}
