import { ErrorRenderer, renderMessageBody } from '@dmrv/errors';

export const INVALID_INPUT_REPLY = 'END Invalid input. Please try again.';
export const UNAVAILABLE_REPLY = 'END Service temporarily unavailable. Please try again later.';
export const PHONE_RATE_LIMITED_REPLY =
  'END Too many requests from your phone. Please try again in a minute.';
export const SESSION_RATE_LIMITED_REPLY =
  'END Too many requests in this session. Please dial again in a minute.';
export const IP_RATE_LIMITED_REPLY = 'END Too many requests. Please try again in a minute.';
export const STORE_UNAVAILABLE_MESSAGE = 'Session store unavailable. Please try again later.';

/**
 * The aggregator shows whatever we answer on the subscriber's screen, so the session endpoint never answers
 * JSON: a client error is the spec's invalid-input text, anything else the unavailable text, both with HTTP 200
 * (a non-200 makes aggregators show their own generic failure). The per-IP 429 keeps the spec's status but is an
 * END text too (a handset cannot show JSON); the per-phone and per-session limits reach one subscriber, so they
 * answer 200 with words.
 */
export const renderUssdError: ErrorRenderer = (error, request) => {
  const isSessionEndpoint = request.method === 'POST' && request.url.split('?')[0] === '/api/ussd';
  if (!isSessionEndpoint) {
    // A dependency outage says so (the shared renderer words every 5xx as an opaque internal error).
    if (error.code === 'DEPENDENCY_UNAVAILABLE')
      return { status: 503, body: { message: STORE_UNAVAILABLE_MESSAGE } };
    return renderMessageBody(error, request);
  }
  const plain = (body: string) => ({ status: 200, body, contentType: 'text/plain; charset=utf-8' });
  if (error.code === 'PHONE_RATE_LIMITED') return plain(PHONE_RATE_LIMITED_REPLY);
  if (error.code === 'SESSION_RATE_LIMITED') return plain(SESSION_RATE_LIMITED_REPLY);
  if (error.status === 429) return { ...plain(IP_RATE_LIMITED_REPLY), status: 429 };
  return plain(error.status < 500 ? INVALID_INPUT_REPLY : UNAVAILABLE_REPLY);
};
