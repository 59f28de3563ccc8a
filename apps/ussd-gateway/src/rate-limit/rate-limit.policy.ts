import { throttlerMessage } from '@nestjs/throttler';
import { DomainError } from '@dmrv/errors';
import { AddressList } from './address-list';
import type { RateLimitCount } from './rate-limit.storage';

/** Named `default` so clients get the standard `Retry-After` and `X-RateLimit-*` headers, without a suffix. */
export const IP_LIMIT = 'default';
export const PHONE_LIMIT = 'phone';
export const SESSION_LIMIT = 'session';

/** One hit to count: which limit, which counter, its budget. */
export interface RateLimitHit {
  name: typeof IP_LIMIT | typeof PHONE_LIMIT | typeof SESSION_LIMIT;
  key: string;
  limit: number;
  ttlMs: number;
  blockMs: number;
}

/** Past the per-IP limit: the spec's 429, with the body @nestjs/throttler gives the other endpoints. */
export class IpRateLimitedError extends DomainError {
  constructor() {
    super('TOO_MANY_REQUESTS', throttlerMessage, 429);
  }
}

/** Too many session requests for one phone number (aggregator traffic): answered as an END text, not a 429. */
export class PhoneRateLimitedError extends DomainError {
  constructor() {
    super('PHONE_RATE_LIMITED', 'Too many requests for this phone number', 429);
  }
}

/** Too many requests on one session (a retry loop, a replayed session id): answered as an END text, not a 429. */
export class SessionRateLimitedError extends DomainError {
  constructor() {
    super('SESSION_RATE_LIMITED', 'Too many requests for this session', 429);
  }
}

/** The counter key of a limit, shared by the session endpoint and @nestjs/throttler on the others. */
export const rateLimitKey = (name: string, tracker: string): string => `${name}:${tracker}`;

/** Each limit's header names, spelt once rather than on every request (two limits count every hop). */
const HEADER_NAMES = Object.fromEntries(
  [IP_LIMIT, PHONE_LIMIT, SESSION_LIMIT].map((name) => {
    const suffix = name === IP_LIMIT ? '' : `-${name}`;
    return [
      name,
      {
        limit: `X-RateLimit-Limit${suffix}`,
        remaining: `X-RateLimit-Remaining${suffix}`,
        reset: `X-RateLimit-Reset${suffix}`,
        retryAfter: `Retry-After${suffix}`,
      },
    ];
  }),
) as Record<RateLimitHit['name'], { limit: string; remaining: string; reset: string; retryAfter: string }>;

/** Exemption checks are cached per address: aggregators come from a handful of them, on every hop. */
const EXEMPTION_CACHE_SIZE = 1024;

/**
 * Who is counted for what. A client IP (Fastify's `request.ip`, which honours X-Forwarded-For only from trusted
 * proxies) has `RATE_LIMIT_PER_IP` requests per window on every endpoint. Exempt aggregator addresses skip that
 * limit; their session requests are counted per phone number instead. The limiter itself (the hop's script, or
 * @nestjs/throttler elsewhere) only counts and reports: the answers are decided here.
 */
export class RateLimitPolicy {
  private readonly exemptions = new Map<string, boolean>();
  private readonly ttlMs: number;

  constructor(
    private readonly options: {
      perIp: number;
      perPhone: number;
      perSession: number;
      windowSeconds: number;
      exempt: AddressList;
    },
  ) {
    this.ttlMs = options.windowSeconds * 1000;
  }

  get perIp(): number {
    return this.options.perIp;
  }

  get windowMs(): number {
    return this.ttlMs;
  }

  isExempt(ip: string | undefined): boolean {
    if (ip === undefined || this.options.exempt.size === 0) return false;
    let exempt = this.exemptions.get(ip);
    if (exempt === undefined) {
      exempt = this.options.exempt.has(ip);
      if (this.exemptions.size >= EXEMPTION_CACHE_SIZE) this.exemptions.clear();
      this.exemptions.set(ip, exempt);
    }
    return exempt;
  }

  /**
   * The hit a session request counts, valid or not (as any request to any endpoint is). `phoneNumber` is whatever
   * the body holds: an invalid request from an aggregator is still charged to the phone it names.
   */
  sessionHit(ip: string | undefined, phoneNumber: unknown): RateLimitHit {
    const { perIp, perPhone } = this.options;
    if (!this.isExempt(ip))
      return {
        name: IP_LIMIT,
        key: rateLimitKey(IP_LIMIT, ip ?? 'unknown'),
        limit: perIp,
        ttlMs: this.ttlMs,
        blockMs: this.ttlMs,
      };
    const phone = typeof phoneNumber === 'string' ? phoneNumber.slice(0, 32) : 'unknown';
    return {
      name: PHONE_LIMIT,
      key: rateLimitKey(PHONE_LIMIT, phone),
      limit: perPhone,
      ttlMs: this.ttlMs,
      blockMs: this.ttlMs,
    };
  }

  /**
   * The session's own limit, counted per phone number that names it: one session cannot take a phone's or an
   * address's budget, and requests naming another phone (which are refused, or close nothing) are counted apart, so
   * that whoever knows only a `sessionId` cannot use up the subscriber's budget and end the session.
   */
  perSessionHit(sessionId: string, phoneNumber: string): RateLimitHit {
    const ttlMs = this.ttlMs;
    const who = `${sessionId.slice(0, 100)}:${phoneNumber.slice(0, 32)}`;
    return {
      name: SESSION_LIMIT,
      key: rateLimitKey(SESSION_LIMIT, who),
      limit: this.options.perSession,
      ttlMs,
      blockMs: ttlMs,
    };
  }

  /**
   * What start-up says when every aggregator request would share one per-IP budget: in production, with no aggregator
   * address exempted. Not a refusal (see README, "Rate limiting").
   */
  startupWarning(environment: string): string | undefined {
    if (environment !== 'production' || this.options.exempt.size > 0) return undefined;
    return (
      `RATE_LIMIT_EXEMPT_CIDRS is empty in production: all of an aggregator's subscribers arrive from a few addresses ` +
      `and share RATE_LIMIT_PER_IP=${this.options.perIp} requests per ${this.options.windowSeconds} s; list the aggregator's addresses`
    );
  }

  /** The headers @nestjs/throttler sends: the budget when admitted, `Retry-After` when refused; suffixed but for `default`. */
  headers(hit: RateLimitHit, count: RateLimitCount): Record<string, string> {
    const names = HEADER_NAMES[hit.name];
    if (count.isBlocked) return { [names.retryAfter]: String(count.timeToBlockExpire) };
    return {
      [names.limit]: String(hit.limit),
      [names.remaining]: String(Math.max(0, hit.limit - count.totalHits)),
      [names.reset]: String(count.timeToExpire),
    };
  }

  /** What a refused request is answered with. */
  refusal(hit: RateLimitHit): DomainError {
    switch (hit.name) {
      case IP_LIMIT:
        return new IpRateLimitedError();
      case PHONE_LIMIT:
        return new PhoneRateLimitedError();
      case SESSION_LIMIT:
        return new SessionRateLimitedError();
    }
  }
}
