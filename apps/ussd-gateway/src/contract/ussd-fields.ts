import { isString, maxLength } from 'class-validator';
import type { UssdSessionRequest } from '@dmrv/contracts';

/** No control characters: `text` is shown back on screens and written to the store. */
const PRINTABLE = /^\P{Cc}*$/u;
export const SERVICE_CODE = /^\*\d{1,6}(\*\d{1,6})*#$/;
/** The longest service code taken (`*384*1234#` is 10): the same bound as a session-end notification's. */
export const SERVICE_CODE_MAX = 64;
export const E164 = /^\+[1-9]\d{6,14}$/;
/** The longest `sessionId` and `text` of a session request, in characters (a surrogate pair is one). */
export const SESSION_ID_MAX = 100;
export const TEXT_MAX = 182;

/**
 * At most `max` characters, counted as class-validator's `maxLength` counts them (a surrogate pair is one). A string
 * no longer than `max` UTF-16 code units is within it without that count, which matches the text against a pattern
 * (the common case on every hop); a longer one is counted. A string of one code unit or more has at least one
 * character, so `minLength(value, 1)` is `value.length > 0`.
 */
const atMost = (value: string, max: number): boolean => value.length <= max || maxLength(value, max);

/**
 * The rules of a session request's fields, checked with class-validator's own rules (lengths count a surrogate pair
 * once, as its decorators do; a pattern is a plain `test`, as its `matches` is for these patterns) but without a DTO
 * instance, metadata lookups or a transformation pass on every hop. Shared by the hop (ussd/ussd-request.ts), the
 * session-end notifications (events/) and the operator endpoints (operators/).
 */
export const USSD_FIELD_RULES: Record<keyof UssdSessionRequest, (value: unknown) => boolean> = {
  sessionId: (value) =>
    isString(value) && value.length > 0 && atMost(value, SESSION_ID_MAX) && PRINTABLE.test(value),
  serviceCode: (value) => isString(value) && value.length <= SERVICE_CODE_MAX && SERVICE_CODE.test(value),
  phoneNumber: (value) => isString(value) && E164.test(value),
  text: (value) => isString(value) && atMost(value, TEXT_MAX) && PRINTABLE.test(value),
};

/** Whether a session id could belong to a session: one the session request's own rule accepts. */
export const isSessionId = (value: unknown): value is string => USSD_FIELD_RULES.sessionId(value);
