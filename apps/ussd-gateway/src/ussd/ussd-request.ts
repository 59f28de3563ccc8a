import { isString, matches, maxLength, minLength } from 'class-validator';
import type { UssdSessionRequest } from '@dmrv/contracts';

/** No control characters: `text` is shown back on screens and written to the store. */
const PRINTABLE = /^\P{Cc}*$/u;
export const SERVICE_CODE = /^\*\d{1,6}(\*\d{1,6})*#$/;
export const E164 = /^\+[1-9]\d{6,14}$/;

/**
 * The rules of a session request, checked field by field with class-validator's own predicates (lengths count a
 * surrogate pair once, as its decorators do) but without a DTO instance, metadata lookups or a transformation pass
 * on every hop. Aggregators add fields of their own (`networkCode`, …): only the four below are read, the rest
 * ignored, never refused.
 */
const RULES: Record<keyof UssdSessionRequest, (value: unknown) => boolean> = {
  sessionId: (value) => isString(value) && minLength(value, 1) && maxLength(value, 100) && matches(value, PRINTABLE),
  serviceCode: (value) => isString(value) && matches(value, SERVICE_CODE),
  phoneNumber: (value) => isString(value) && matches(value, E164),
  text: (value) => isString(value) && maxLength(value, 182) && matches(value, PRINTABLE),
};
const FIELDS = Object.keys(RULES) as Array<keyof UssdSessionRequest>;

/** Whether a session id could belong to a session: one the session request's own rule accepts. */
export const isSessionId = (value: unknown): value is string => RULES.sessionId(value);

export type ParsedUssdRequest = { valid: true; request: UssdSessionRequest } | { valid: false; invalidFields: string[] };

/** A request body (JSON or form, any shape) as a session request, or the names of the fields that fail. */
export function parseUssdRequest(body: unknown): ParsedUssdRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { valid: false, invalidFields: FIELDS };
  const fields = body as Record<string, unknown>;
  const invalidFields = FIELDS.filter((name) => !RULES[name](fields[name]));
  if (invalidFields.length > 0) return { valid: false, invalidFields };
  return {
    valid: true,
    request: {
      sessionId: fields.sessionId as string,
      serviceCode: fields.serviceCode as string,
      phoneNumber: fields.phoneNumber as string,
      text: fields.text as string,
    },
  };
}
