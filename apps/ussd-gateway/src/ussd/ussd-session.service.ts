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
import { applyEffectResult, applyInput, Effect, EffectResult, initialState, isEnded, MenuState } from '../menus/menu-machine';
import { MAX_REMEMBERED_REPLIES, SESSION_STORE, SessionRecord, SessionStore } from '../sessions/session-store';
import { parseKey } from '../accounts/pin-vault';
import { RATE_LIMIT_STORAGE } from '../rate-limit/rate-limit.module';
import { RateLimitPolicy } from '../rate-limit/rate-limit.policy';
import type { RateLimitCount } from '../rate-limit/rate-limit.storage';
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
      if (count.isBlocked) throw this.limits.refusal(hit);
    };
    if (!parsed.valid) {
      admit(await this.counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs, hit.name));
      throw new InvalidInputError(`invalid session request: ${parsed.invalidFields.join(', ')}`);
    }
    const request = parsed.request;
    const budget = this.config.HOP_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([
        this.store.withSession(
          request.sessionId,
          { waitMs: dependencyTimeouts(budget).sessionLockWaitMs, ttlSeconds: this.config.SESSION_TTL_SECONDS, rateLimit: { hit, admit } },
          (existing) => this.hop(request, existing),
        ),
        new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new HopTimeoutError(budget)), budget))),
      ]);
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // Redis, PostgreSQL, a time-out or a busy lock: the subscriber sees the unavailable text, the log the cause
      // (the request id is added by the request-bound logger).
      this.logger.error({ err: error, sessionId: request.sessionId.slice(0, 100) }, 'session hop failed: a dependency is unavailable');
      throw new DependencyUnavailableError('session dependencies', error);
    } finally {
      clearTimeout(timer);
    }
  }

  private async hop(request: UssdSessionRequest, existing: SessionRecord | null): Promise<{ value: string; save?: SessionRecord }> {
    if (existing && existing.phoneNumber !== request.phoneNumber) {
      throw new InvalidInputError('sessionId belongs to another phone number');
    }
    const textDigest = this.digest(request.text);
    const remembered = existing?.replies.find((entry) => entry.textDigest === textDigest);
    if (existing && remembered) {
      // A retry: same answer, nothing applied twice; the session's clock still restarts.
      return { value: remembered.reply, save: existing.status === 'active' ? existing : undefined };
    }
    if (existing?.status === 'ended') return { value: ENDED_REPLY };

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
    const derived = deriveNewInputs(existing ? existing.consumed : null, request.text, this.digest);
    let state = record.state;
    let reply: string;
    if (derived.kind === 'outOfStep') {
      state = { screen: 'ended', farewell: { kind: 'goodbye' } };
      reply = OUT_OF_STEP_REPLY;
    } else {
      for (const input of derived.inputs) {
        if (isEnded(state)) break;
        state = await this.apply(state, input, record);
      }
      const screen = this.renderer.render(state);
      reply = `${screen.kind} ${screen.text}`;
    }
    return {
      value: reply,
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

  private async apply(state: MenuState, input: string, session: SessionRecord): Promise<MenuState> {
    let step = applyInput(state, input, this.renderer);
    while (step.effect) step = applyEffectResult(step.state, await this.perform(step.effect, session));
    return step.state;
  }

  private async perform(effect: Effect, session: SessionRecord): Promise<EffectResult> {
    switch (effect.type) {
      case 'holdPin':
        return { type: 'held', heldPin: this.accounts.hold(effect.pin) };
      case 'matchPin':
        return { type: 'matched', match: await this.accounts.matches(effect.pin, effect.heldPin) };
      case 'createAccount':
        return {
          type: 'created',
          customerId: await this.accounts.create({
            phoneNumber: session.phoneNumber,
            fullName: effect.fullName,
            email: effect.email,
            heldPin: effect.heldPin,
          }),
        };
      case 'verifyPin':
        return { type: 'verified', outcome: await this.accounts.verify(effect.customerId, effect.pin) };
      case 'loadAccount':
        return { type: 'loaded', account: await this.accounts.details(effect.customerId) };
      case 'replacePin':
        await this.accounts.replacePin(effect.customerId, effect.heldPin);
        return { type: 'replaced' };
    }
  }
}
