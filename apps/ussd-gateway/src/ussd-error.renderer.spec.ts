import { normalizeException, DependencyUnavailableError } from '@dmrv/errors';
import { BadRequestException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import {
  IpRateLimitedError,
  PhoneRateLimitedError,
  SessionRateLimitedError,
} from './rate-limit/rate-limit.policy';
import {
  INVALID_INPUT_REPLY,
  IP_RATE_LIMITED_REPLY,
  PHONE_RATE_LIMITED_REPLY,
  renderUssdError,
  SESSION_RATE_LIMITED_REPLY,
  STORE_UNAVAILABLE_MESSAGE,
  UNAVAILABLE_REPLY,
} from './ussd-error.renderer';

const session = { method: 'POST', url: '/api/ussd' };
const render = (error: unknown, request = session) => renderUssdError(normalizeException(error), request);

describe('renderUssdError', () => {
  it('turns session-endpoint failures into USSD text with HTTP 200', () => {
    expect(render(new BadRequestException('text'))).toEqual({
      status: 200,
      body: INVALID_INPUT_REPLY,
      contentType: 'text/plain; charset=utf-8',
    });
    expect(render(new DependencyUnavailableError('redis'))).toMatchObject({
      status: 200,
      body: UNAVAILABLE_REPLY,
    });
    expect(render(new Error('boom'))).toMatchObject({ status: 200, body: UNAVAILABLE_REPLY });
    expect(render(new PhoneRateLimitedError())).toMatchObject({
      status: 200,
      body: PHONE_RATE_LIMITED_REPLY,
    });
    expect(render(new SessionRateLimitedError())).toEqual({
      status: 200,
      body: SESSION_RATE_LIMITED_REPLY,
      contentType: 'text/plain; charset=utf-8',
    });
    expect(render(new BadRequestException('x'), { method: 'POST', url: '/api/ussd?x=1' })).toMatchObject({
      body: INVALID_INPUT_REPLY,
    });
  });

  it('keeps the per-IP 429 status on the session endpoint, as an END text', () => {
    expect(render(new IpRateLimitedError())).toEqual({
      status: 429,
      body: IP_RATE_LIMITED_REPLY,
      contentType: 'text/plain; charset=utf-8',
    });
    expect(render(new ThrottlerException())).toEqual(render(new IpRateLimitedError()));
  });

  it('answers every other endpoint as JSON {message}, the 429 included', () => {
    const other = { method: 'POST', url: '/api/ussd/events' };
    expect(render(new ThrottlerException(), other)).toEqual({
      status: 429,
      body: { message: 'ThrottlerException: Too Many Requests' },
    });
    // The service's own refusal is indistinguishable from the guard's.
    expect(render(new IpRateLimitedError(), other)).toEqual(render(new ThrottlerException(), other));
    expect(render(new BadRequestException('bad'), { method: 'GET', url: '/api/ussd/sessions' })).toEqual({
      status: 400,
      body: { message: 'bad' },
    });
  });

  it('answers a dependency outage outside the session endpoint with 503 {message} saying so, other 5xx opaquely', () => {
    const operator = { method: 'GET', url: '/api/ussd/sessions' };
    expect(render(new DependencyUnavailableError('session store'), operator)).toEqual({
      status: 503,
      body: { message: STORE_UNAVAILABLE_MESSAGE },
    });
    expect(render(new Error('boom'), operator)).toEqual({
      status: 500,
      body: { message: 'Internal server error' },
    });
  });
});
