import { E164, isSessionId, SERVICE_CODE, SERVICE_CODE_MAX } from '../contract/ussd-fields';

/** The outcomes Africa's Talking reports for a session. */
export const SESSION_EVENT_STATUSES = ['Success', 'Incomplete', 'Failed'] as const;
export type SessionEventStatus = (typeof SESSION_EVENT_STATUSES)[number];

/**
 * The aggregator's session-end notification, as kept. `input` (every key the subscriber pressed, PINs included) is
 * not here: it is never read beyond its type, never stored, never logged.
 */
export interface SessionEndEvent {
  sessionId: string;
  phoneNumber: string;
  serviceCode: string;
  networkCode: string | null;
  status: SessionEventStatus;
  durationInMillis: number | null;
  hopsCount: number | null;
  /** Our own last screen, as the aggregator saw it (our screens never show a PIN). */
  lastAppResponse: string | null;
  errorMessage: string | null;
  /** As sent, e.g. `KES 0.0000`. */
  cost: string | null;
  /** As sent, e.g. `2026-11-23 13:05:09`: the aggregator does not say in which time zone. */
  date: string | null;
}

export type ParsedSessionEvent =
  | { valid: true; event: SessionEndEvent }
  | { valid: false; invalidFields: string[] };

/** Printable text (line breaks allowed: screens have them) of at most `max` characters. */
const PRINTABLE_LINES = /^[^\p{Cc}]*$/u;
const LINE_BREAKS = /[\r\n]/g;
const printable =
  (max: number, lines = false) =>
  (value: unknown): value is string =>
    typeof value === 'string' &&
    [...value].length <= max &&
    PRINTABLE_LINES.test(lines ? value.replace(LINE_BREAKS, '') : value);

const NETWORK_CODE = /^\d{1,10}$/;
const COUNT = /^\d{1,10}$/;
const MAX_COUNT = 2_147_483_647;

/** A whole number ≥ 0 that fits an `integer` column, as a JSON number or a form field's digits. */
function count(value: unknown): number | undefined {
  if (typeof value === 'number')
    return Number.isInteger(value) && value >= 0 && value <= MAX_COUNT ? value : undefined;
  if (typeof value === 'string' && COUNT.test(value)) {
    const parsed = Number(value);
    return parsed <= MAX_COUNT ? parsed : undefined;
  }
  return undefined;
}

interface FieldRule<T> {
  required: boolean;
  read(value: unknown): T | undefined;
}

const rule = <T>(required: boolean, read: (value: unknown) => T | undefined): FieldRule<T> => ({
  required,
  read,
});
const text =
  (max: number, pattern?: RegExp, lines = false) =>
  (value: unknown): string | undefined =>
    printable(max, lines)(value) && (!pattern || pattern.test(value)) ? value : undefined;

/** The longest value of each text field, in characters (the OpenAPI document states them). */
export const SESSION_EVENT_FIELD_MAX = {
  phoneNumber: 16,
  lastAppResponse: 1000,
  errorMessage: 500,
  cost: 32,
  date: 40,
  input: 2000,
} as const;
const MAX = SESSION_EVENT_FIELD_MAX;

const RULES = {
  sessionId: rule(true, (value) => (isSessionId(value) ? value : undefined)),
  phoneNumber: rule(true, text(MAX.phoneNumber, E164)),
  serviceCode: rule(true, text(SERVICE_CODE_MAX, SERVICE_CODE)),
  networkCode: rule(false, text(10, NETWORK_CODE)),
  status: rule(true, (value) => SESSION_EVENT_STATUSES.find((status) => status === value)),
  durationInMillis: rule(false, count),
  hopsCount: rule(false, count),
  lastAppResponse: rule(false, text(MAX.lastAppResponse, undefined, true)),
  errorMessage: rule(false, text(MAX.errorMessage, undefined, true)),
  cost: rule(false, text(MAX.cost)),
  date: rule(false, text(MAX.date)),
  // Checked for its shape only, so that a malformed notification is refused whole; its value is never kept.
  input: rule(false, (value) => (typeof value === 'string' && value.length <= MAX.input ? true : undefined)),
} satisfies Record<string, FieldRule<unknown>>;

type Rules = typeof RULES;
type Read = { [K in keyof Rules]: ReturnType<Rules[K]['read']> };

/**
 * A notification body (JSON or form, any shape) as a session-end event, or the names of the fields that fail (never
 * their values: `input` holds PINs). Fields the aggregator adds beyond these are ignored; an optional field may be
 * absent or empty (form bodies send empty strings).
 */
export function parseSessionEvent(body: unknown): ParsedSessionEvent {
  const names = Object.keys(RULES) as Array<keyof Rules>;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { valid: false, invalidFields: names.filter((name) => RULES[name].required) };
  }
  const fields = body as Record<string, unknown>;
  const read: Partial<Record<keyof Rules, unknown>> = {};
  const invalidFields: string[] = [];
  for (const name of names) {
    const value = Object.prototype.hasOwnProperty.call(fields, name) ? fields[name] : undefined;
    const absent = value === undefined || value === null || value === '';
    if (absent) {
      if (RULES[name].required) invalidFields.push(name);
      continue;
    }
    const parsed = RULES[name].read(value);
    if (parsed === undefined) invalidFields.push(name);
    else read[name] = parsed;
  }
  if (invalidFields.length > 0) return { valid: false, invalidFields };
  const value = read as Partial<Read>;
  return {
    valid: true,
    event: {
      sessionId: value.sessionId!,
      phoneNumber: value.phoneNumber!,
      serviceCode: value.serviceCode!,
      networkCode: value.networkCode ?? null,
      status: value.status!,
      durationInMillis: value.durationInMillis ?? null,
      hopsCount: value.hopsCount ?? null,
      lastAppResponse: value.lastAppResponse ?? null,
      errorMessage: value.errorMessage ?? null,
      cost: value.cost ?? null,
      date: value.date ?? null,
    },
  };
}
