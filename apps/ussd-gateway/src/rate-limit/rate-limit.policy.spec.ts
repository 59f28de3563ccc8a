import { AddressList } from './address-list';
import {
  IpRateLimitedError,
  PhoneRateLimitedError,
  RateLimitPolicy,
  SessionRateLimitedError,
} from './rate-limit.policy';

const policy = (exempt: string[] = ['196.201.214.0/24']) =>
  new RateLimitPolicy({
    perIp: 100,
    perPhone: 30,
    perSession: 20,
    windowSeconds: 60,
    exempt: new AddressList(exempt),
  });

const admitted = { totalHits: 7, timeToExpire: 42, isBlocked: false, timeToBlockExpire: 0 };
const blocked = { totalHits: 101, timeToExpire: 12, isBlocked: true, timeToBlockExpire: 60 };

describe('RateLimitPolicy', () => {
  it('counts a session request per client IP, under the key the throttler uses on every other endpoint', () => {
    expect(policy().sessionHit('10.0.0.1', '+254700000001')).toEqual({
      name: 'default',
      key: 'default:10.0.0.1',
      limit: 100,
      ttlMs: 60_000,
      blockMs: 60_000,
    });
    expect(policy().sessionHit(undefined, '+254700000001').key).toBe('default:unknown');
  });

  it('counts an exempt address per phone number, whatever the body holds', () => {
    const limits = policy();
    expect(limits.sessionHit('196.201.214.9', '+254700000001')).toEqual({
      name: 'phone',
      key: 'phone:+254700000001',
      limit: 30,
      ttlMs: 60_000,
      blockMs: 60_000,
    });
    expect(limits.sessionHit('::ffff:196.201.214.9', '+254700000001').name).toBe('phone');
    expect(limits.sessionHit('196.201.214.9', undefined).key).toBe('phone:unknown');
    expect(limits.sessionHit('196.201.214.9', ['+254700000001']).key).toBe('phone:unknown');
    expect(limits.sessionHit('196.201.214.9', 'x'.repeat(40)).key).toBe(`phone:${'x'.repeat(32)}`);
  });

  it('remembers exemptions without growing past its bound', () => {
    const limits = policy();
    for (let host = 0; host < 3000; host += 1)
      expect(limits.isExempt(`10.${host >> 8}.${host & 255}.1`)).toBe(false);
    expect(limits.isExempt('196.201.214.1')).toBe(true);
    expect(limits.isExempt('196.201.214.1')).toBe(true);
    expect((limits as unknown as { exemptions: Map<string, boolean> }).exemptions.size).toBeLessThanOrEqual(
      1024,
    );
    expect(policy([]).isExempt('196.201.214.1')).toBe(false);
    expect(limits.isExempt(undefined)).toBe(false);
  });

  it('sends the headers @nestjs/throttler sends: plain for the IP limit, suffixed for the phone limit', () => {
    const limits = policy();
    const ip = limits.sessionHit('10.0.0.1', '+254700000001');
    const phone = limits.sessionHit('196.201.214.9', '+254700000001');
    expect(limits.headers(ip, admitted)).toEqual({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '93',
      'X-RateLimit-Reset': '42',
    });
    expect(limits.headers(ip, { ...admitted, totalHits: 100 })['X-RateLimit-Remaining']).toBe('0');
    expect(limits.headers(ip, blocked)).toEqual({ 'Retry-After': '60' });
    expect(limits.headers(phone, admitted)).toEqual({
      'X-RateLimit-Limit-phone': '30',
      'X-RateLimit-Remaining-phone': '23',
      'X-RateLimit-Reset-phone': '42',
    });
    expect(limits.headers(phone, blocked)).toEqual({ 'Retry-After-phone': '60' });
  });

  it('refuses past the IP limit with the 429 and past the phone and session limits with the END text', () => {
    const limits = policy();
    expect(limits.refusal(limits.sessionHit('10.0.0.1', '+254700000001'))).toBeInstanceOf(IpRateLimitedError);
    expect(limits.refusal(limits.sessionHit('196.201.214.9', '+254700000001'))).toBeInstanceOf(
      PhoneRateLimitedError,
    );
    expect(limits.refusal(limits.perSessionHit('ATUid_1', '+254700000001'))).toBeInstanceOf(
      SessionRateLimitedError,
    );
  });

  it('counts every session on its own, per phone that names it, with its headers suffixed', () => {
    const limits = policy();
    const session = limits.perSessionHit('ATUid_1', '+254700000001');
    expect(session).toEqual({
      name: 'session',
      key: 'session:ATUid_1:+254700000001',
      limit: 20,
      ttlMs: 60_000,
      blockMs: 60_000,
    });
    expect(limits.perSessionHit('ATUid_1', '+254700000002').key).toBe('session:ATUid_1:+254700000002');
    expect(limits.perSessionHit('x'.repeat(150), '+254700000001').key).toBe(
      `session:${'x'.repeat(100)}:+254700000001`,
    );
    expect(limits.headers(session, admitted)).toEqual({
      'X-RateLimit-Limit-session': '20',
      'X-RateLimit-Remaining-session': '13',
      'X-RateLimit-Reset-session': '42',
    });
    expect(limits.headers(session, blocked)).toEqual({ 'Retry-After-session': '60' });
  });

  it('warns at start-up in production when no aggregator address is exempted, and only then', () => {
    expect(policy([]).startupWarning('production')).toBe(
      "RATE_LIMIT_EXEMPT_CIDRS is empty in production: all of an aggregator's subscribers arrive from a few addresses and share " +
        "RATE_LIMIT_PER_IP=100 requests per 60 s; list the aggregator's addresses",
    );
    expect(policy().startupWarning('production')).toBeUndefined();
    expect(policy([]).startupWarning('development')).toBeUndefined();
    expect(policy([]).startupWarning('test')).toBeUndefined();
  });
});
