import { ErrorRenderer, renderMessageBody } from '@dmrv/errors';

export const INVALID_INPUT_REPLY = 'END Invalid input. Please try again.';
export const UNAVAILABLE_REPLY = 'END Service temporarily unavailable. Please try again later.';

/**
 * The aggregator shows whatever we answer on the subscriber's screen, so the session endpoint never answers
 * JSON: a client error is the spec's invalid-input text, anything else the unavailable text, both with HTTP 200
 * (a non-200 makes aggregators show their own generic failure). 429 stays 429, as the spec says.
 */
export const renderUssdError: ErrorRenderer = (error, request) => {
  const isSessionEndpoint = request.method === 'POST' && request.url.split('?')[0] === '/api/ussd';
  if (!isSessionEndpoint || error.status === 429 || error.status === 404) return renderMessageBody(error, request);
  const text = error.status < 500 ? INVALID_INPUT_REPLY : UNAVAILABLE_REPLY;
  return { status: 200, body: text, contentType: 'text/plain; charset=utf-8' };
};
