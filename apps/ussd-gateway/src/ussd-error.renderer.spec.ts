import { normalizeException, DependencyUnavailableError } from '@dmrv/errors';
import { BadRequestException } from '@nestjs/common';
import { ThrottlerException } from '@nestjs/throttler';
import { IpRateLimitedError, PhoneRateLimitedError } from './rate-limit/rate-limit.policy';
import { INVALID_INPUT_REPLY, PHONE_RATE_LIMITED_REPLY, renderUssdError, STORE_UNAVAILABLE_MESSAGE, UNAVAILABLE_REPLY } from './ussd-error.renderer';

const session = { method: 'POST', url: '/api/ussd' };
const render = (error: unknown, request = session) => renderUssdError(normalizeException(error), request);

describe('renderUssdError', () => {
  it('turns session-endpoint failures into USSD text with HTTP 200', () => {
    expect(render(new BadRequestException('text'))).toEqual({ status: 200, body: INVALID_INPUT_REPLY, contentType: 'text/plain; charset=utf-8' });
    expect(render(new DependencyUnavailableError('redis'))).toMatchObject({ status: 200, body: UNAVAILABLE_REPLY });
    expect(render(new Error('boom'))).toMatchObject({ status: 200, body: UNAVAILABLE_REPLY });
    expect(render(new PhoneRateLimitedError())).toMatchObject({ status: 200, body: PHONE_RATE_LIMITED_REPLY });
    expect(render(new BadRequestException('x'), { method: 'POST', url: '/api/ussd?x=1' })).toMatchObject({ body: INVALID_INPUT_REPLY });
  });

  it('keeps the per-IP 429 and every other endpoint as JSON {message}', () => {
    expect(render(new ThrottlerException())).toEqual({ status: 429, body: { message: 'ThrottlerException: Too Many Requests' } });
    // The session endpoint's own refusal is indistinguishable from the guard's.
    expect(render(new IpRateLimitedError())).toEqual(render(new ThrottlerException()));
    expect(render(new BadRequestException('bad'), { method: 'GET', url: '/api/ussd/sessions' })).toEqual({ status: 400, body: { message: 'bad' } });
  });

  it('answers a dependency outage outside the session endpoint with 503 {message} saying so, other 5xx opaquely', () => {
    const operator = { method: 'GET', url: '/api/ussd/sessions' };
    expect(render(new DependencyUnavailableError('session store'), operator)).toEqual({ status: 503, body: { message: STORE_UNAVAILABLE_MESSAGE } });
    expect(render(new Error('boom'), operator)).toEqual({ status: 500, body: { message: 'Internal server error' } });
  });
});
