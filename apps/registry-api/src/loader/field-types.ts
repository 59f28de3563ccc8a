import { FUEL_TYPES } from '@dmrv/contracts';

/**
 * How one column of a data file is read. Every parser takes what the file holds (a CSV field is always text; an
 * NDJSON value is a JSON string, number, array or null) and returns the value in PostgreSQL's text form, ready for
 * the staging table, or the rule it breaks. Nothing here rounds or guesses: a value the registry cannot store
 * exactly is refused, because a load that silently changes a number would change it again on every reload.
 */
export type FieldType =
  | { kind: 'id' }
  | { kind: 'text'; maxLength: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'date' }
  | { kind: 'timestamp' }
  | {
      kind: 'decimal';
      integerDigits: number;
      scale: number;
      min: number;
      minExclusive?: boolean;
      max?: number;
    }
  | { kind: 'integer'; min: number; max: number }
  | { kind: 'fuels' };

export type Parsed = { ok: true; value: string | null } | { ok: false; rule: string };

/** Identifiers as the API's selectors accept them, so every loaded record can be asked for by id. */
const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const ID_MAX = 100;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;
const INTEGER = /^-?\d+$/;
// C0 controls and DEL: a name with a tab or a newline in it is a broken export, not a name.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// A lone UTF-16 surrogate (an NDJSON "\ud800" escape) has no UTF-8 form: PostgreSQL would get U+FFFD instead.
const LONE_SURROGATE = /\p{Cs}/u;

const ok = (value: string | null): Parsed => ({ ok: true, value });
const fail = (rule: string): Parsed => ({ ok: false, rule });

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return day <= days;
}

/** A JSON number is written back in its shortest form (what `JSON.stringify` prints), then read as text. */
function asText(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number' && Number.isFinite(raw)) return String(raw);
  return undefined;
}

export function describeType(type: FieldType): string {
  switch (type.kind) {
    case 'id':
      return `an identifier (letters, digits, . _ : -; at most ${ID_MAX} characters)`;
    case 'text':
      return `text (at most ${type.maxLength} characters, no control characters)`;
    case 'enum':
      return `one of ${type.values.join(', ')}`;
    case 'date':
      return 'a date YYYY-MM-DD';
    case 'timestamp':
      return 'an ISO 8601 date-time with a time zone (2024-01-01T08:30:00Z)';
    case 'decimal':
      return `a decimal number with at most ${type.scale} decimal places`;
    case 'integer':
      return `a whole number from ${type.min} to ${type.max}`;
    case 'fuels':
      return `fuels among ${FUEL_TYPES.join(', ')} joined by " + "`;
  }
}

function parseDecimal(text: string, type: Extract<FieldType, { kind: 'decimal' }>): Parsed {
  const match = DECIMAL.exec(text);
  if (!match) return fail(`must be ${describeType(type)} (digits, an optional point, no exponent)`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > type.scale) return fail(`must have at most ${type.scale} decimal places`);
  const digits = whole!.replace(/^0+(?=\d)/, '');
  if (digits.length > type.integerDigits) return fail(`must be below ${10 ** type.integerDigits}`);
  const value = Number(`${sign}${digits}.${fraction || '0'}`);
  if (type.minExclusive ? value <= type.min : value < type.min) {
    return fail(type.minExclusive ? `must be greater than ${type.min}` : `must be at least ${type.min}`);
  }
  if (type.max !== undefined && value > type.max) return fail(`must be at most ${type.max}`);
  return ok(`${sign}${digits}${fraction ? `.${fraction}` : ''}`);
}

function parseFuels(raw: unknown): Parsed {
  let names: unknown[];
  if (Array.isArray(raw)) names = raw;
  else if (typeof raw === 'string')
    names = raw.trim() === '' ? [] : raw.split('+').map((part) => part.trim());
  else return fail(`must be ${describeType({ kind: 'fuels' })}`);
  const seen = new Set<string>();
  for (const name of names) {
    if (typeof name !== 'string' || !(FUEL_TYPES as readonly string[]).includes(name)) {
      return fail(`${JSON.stringify(name)} is not one of ${FUEL_TYPES.join(', ')}`);
    }
    if (seen.has(name)) return fail(`names ${name} twice`);
    seen.add(name);
  }
  // A PostgreSQL array literal: fuel names need no quoting.
  return ok(`{${FUEL_TYPES.filter((fuel) => seen.has(fuel)).join(',')}}`);
}

/**
 * `raw` is `undefined` or `null` for a missing value (an empty CSV field, an absent or null NDJSON member).
 * An empty fuel list is a value (a household without recorded fuels), not a missing one.
 */
export function parseField(type: FieldType, raw: unknown, required: boolean): Parsed {
  if (type.kind === 'fuels') return raw === undefined || raw === null ? ok('{}') : parseFuels(raw);
  if (raw === undefined || raw === null || raw === '') return required ? fail('is required') : ok(null);
  const text = asText(raw);
  switch (type.kind) {
    case 'id':
      if (typeof raw !== 'string' || !ID.test(raw)) return fail(`must be ${describeType(type)}`);
      return raw.length > ID_MAX ? fail(`must be at most ${ID_MAX} characters`) : ok(raw);
    case 'text':
      if (typeof raw !== 'string') return fail('must be text');
      if (raw.trim() !== raw) return fail('must not start or end with spaces');
      if (CONTROL.test(raw)) return fail('must not contain control characters (tab, newline …)');
      if (LONE_SURROGATE.test(raw))
        return fail('must be Unicode text (a lone surrogate such as \\ud800 has no UTF-8 form)');
      return raw.length > type.maxLength ? fail(`must be at most ${type.maxLength} characters`) : ok(raw);
    case 'enum':
      return typeof raw === 'string' && type.values.includes(raw)
        ? ok(raw)
        : fail(`must be ${describeType(type)}`);
    case 'date': {
      const match = typeof raw === 'string' ? DATE.exec(raw) : null;
      if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
        return fail(`must be ${describeType(type)}`);
      }
      return ok(raw as string);
    }
    case 'timestamp': {
      const match = typeof raw === 'string' ? TIMESTAMP.exec(raw) : null;
      const [, year, month, day, hour, minute, second, , zone] = match ?? [];
      const valid =
        match !== null &&
        isCalendarDate(Number(year), Number(month), Number(day)) &&
        Number(hour) < 24 &&
        Number(minute) < 60 &&
        Number(second) < 60 &&
        (zone === 'Z' || (Number(zone!.slice(1, 3)) < 24 && Number(zone!.slice(4)) < 60));
      return valid ? ok(raw as string) : fail(`must be ${describeType(type)}`);
    }
    case 'decimal':
      return text === undefined ? fail(`must be ${describeType(type)}`) : parseDecimal(text, type);
    case 'integer': {
      if (text === undefined || !INTEGER.test(text)) return fail(`must be ${describeType(type)}`);
      const value = Number(text);
      if (!Number.isSafeInteger(value) || value < type.min || value > type.max) {
        return fail(`must be ${describeType(type)}`);
      }
      return ok(String(value));
    }
  }
}
