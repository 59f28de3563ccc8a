import { ErrorRenderer, renderMessageBody } from '@dmrv/errors';

/**
 * What a 503 tells the client, by error code. The shared filter makes every 5xx message opaque (a driver error may
 * name hosts or users), which for a 503 hides the one thing the client needs: that retrying later is the remedy. These
 * texts are fixed here, so nothing of the cause reaches the client; the cause stays in the log.
 */
const UNAVAILABLE_MESSAGES: Record<string, string> = {
  AUTH_BUSY: 'Too many authentications in progress; retry shortly',
  DEPENDENCY_UNAVAILABLE: 'The registry database is unavailable; retry later',
};
const UNAVAILABLE = 'Service temporarily unavailable; retry later';

/** `{ "message" }` for every error, as the shared renderer writes it, with a message that says what to do for a 503. */
export const renderRegistryError: ErrorRenderer = (error, request) => {
  if (error.status !== 503) return renderMessageBody(error, request);
  return { status: 503, body: { message: UNAVAILABLE_MESSAGES[error.code] ?? UNAVAILABLE } };
};
