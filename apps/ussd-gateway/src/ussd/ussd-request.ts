import type { UssdSessionRequest } from '@dmrv/contracts';
import { USSD_FIELD_RULES as RULES } from '../contract/ussd-fields';

const FIELDS = Object.keys(RULES) as Array<keyof UssdSessionRequest>;

export type ParsedUssdRequest =
  | { valid: true; request: UssdSessionRequest }
  | { valid: false; invalidFields: string[] };

/**
 * A request body (JSON or form, any shape) as a session request, or the names of the fields that fail. Aggregators
 * add fields of their own (`networkCode`, …): only the four of USSD_FIELD_RULES are read, the rest ignored, never
 * refused.
 */
export function parseUssdRequest(body: unknown): ParsedUssdRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return { valid: false, invalidFields: FIELDS };
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
