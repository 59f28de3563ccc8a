import { Field, util } from 'protobufjs';
import { CosmosScalar, legacyDecText } from './cosmos-scalars';
import { utcDateTime } from './rfc3339';

// The JSON text of single values as a Cosmos node prints them: strings, numbers, 64-bit integers, bytes, customtypes,
// Timestamps and Durations. json-printer.ts puts them together into messages.

/** A response that cannot be printed (e.g. an Any of a type we have no descriptor for). */
export class PrintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrintError';
  }
}

export const SIXTY_FOUR = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const MIN_TIMESTAMP = -62_135_596_800; // 0001-01-01T00:00:00Z
const MAX_TIMESTAMP = 253_402_300_799; // 9999-12-31T23:59:59Z
const TWO_TO_THE_32 = 4_294_967_296;
// A 64-bit value whose high word is below 2^21 in magnitude is below 2^53: exact as a double.
const SAFE_HIGH_WORD = 0x20_0000;

/** What protobufjs decodes 64-bit integers into (the `long` package). */
interface Long {
  low: number;
  high: number;
  unsigned: boolean;
  toString(): string;
}

function isLong(value: unknown): value is Long {
  return value instanceof util.Long;
}

/** The Long's value as a double: exact below 2^53, correctly rounded above (as Number(BigInt) rounds). */
function longToNumber(value: Long): number {
  return (value.unsigned ? value.high >>> 0 : value.high) * TWO_TO_THE_32 + (value.low >>> 0);
}

function toBigInt(value: unknown): bigint {
  if (typeof value === 'number') return BigInt(Math.trunc(value));
  if (typeof value === 'string') return BigInt(value);
  // Long instances (and protobufjs' LongBits without the long package) carry two 32-bit halves.
  if (value && typeof value === 'object' && 'low' in value && 'high' in value) {
    const { low, high, unsigned } = value as { low: number; high: number; unsigned?: boolean };
    const combined = (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0);
    return unsigned ? combined : BigInt.asIntN(64, combined);
  }
  return 0n;
}

/** Decimal text of a 64-bit integer however a caller represented it (numbers, strings, Long-like objects). */
function int64Text(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  if (
    value &&
    typeof value === 'object' &&
    typeof (value as { toString?: unknown }).toString === 'function' &&
    'unsigned' in value
  ) {
    return (value as { toString(): string }).toString();
  }
  return toBigInt(value ?? 0).toString();
}

/** 64-bit integers are JSON strings (JavaScript and many other clients lose precision above 2^53). */
export function int64Json(value: unknown): string {
  if (isLong(value)) {
    // What protobufjs decodes into. Long's own toString divides in 64-bit steps even for small values.
    const high = value.unsigned ? value.high >>> 0 : value.high;
    const digits =
      high < SAFE_HIGH_WORD && high >= -SAFE_HIGH_WORD ? String(longToNumber(value)) : value.toString();
    return `"${digits}"`;
  }
  return jsonString(int64Text(value));
}

// What JSON.stringify escapes in a string: quote, backslash, control characters, and surrogates (lone ones are
// escaped; paired ones, rare, simply take the slow path).
// eslint-disable-next-line no-control-regex -- control characters are exactly what must be found
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify of a string; most strings (DIDs, addresses, names) need no escaping and skip its set-up cost. */
export function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** JSON.stringify of a number: finite numbers print as JavaScript prints them, anything else as null. */
export function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** jsonpb prints the IEEE specials as strings. */
export function floatJson(value: number): string {
  if (Number.isNaN(value)) return '"NaN"';
  if (value === Infinity) return '"Infinity"';
  if (value === -Infinity) return '"-Infinity"';
  return String(value);
}

/** Absent, or of length 0 (a Buffer, a base64 string, or the shared empty array protobufjs gives absent fields). */
export function isEmptyBytes(value: unknown): boolean {
  return value === undefined || value === null || (value as { length?: unknown }).length === 0;
}

export function bytesJson(value: unknown): string {
  if (typeof value === 'string') return jsonString(value);
  if (value instanceof Uint8Array)
    return `"${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')}"`;
  return '""';
}

/** The text a Cosmos customtype travels as: the string itself, or the bytes read as UTF-8. */
function wireText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('utf8');
  return '';
}

export function cosmosScalarWriter(scalar: CosmosScalar, field: Field): Writer {
  if (scalar === 'integer') {
    // Int's MarshalJSON prints its zero value as "0"; a string field is printed as it is, as before.
    return field.type === 'bytes'
      ? (value) => jsonString(wireText(value) || '0')
      : (value) => jsonString(wireText(value));
  }
  return (value) => {
    const wire = wireText(value);
    const text = legacyDecText(wire);
    if (text === undefined) {
      throw new PrintError(
        `${field.fullName.slice(1)}: ${JSON.stringify(wire.slice(0, 40))} is not a LegacyDec as the wire carries it (an integer scaled by 10^18)`,
      );
    }
    return `"${text}"`;
  };
}

/** 0, 3, 6 or 9 fractional digits, as Go's jsonpb and the canonical mapping print them. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

export function timestampJson(message: Record<string, unknown>): string {
  const seconds = isLong(message.seconds) ? longToNumber(message.seconds) : Number(toBigInt(message.seconds));
  const nanos = Number(message.nanos ?? 0);
  if (seconds < MIN_TIMESTAMP || seconds > MAX_TIMESTAMP || nanos < 0 || nanos > 999_999_999) {
    throw new PrintError('timestamp out of range');
  }
  return `"${utcDateTime(seconds)}${fraction(nanos)}Z"`;
}

export function durationJson(message: Record<string, unknown>): string {
  const seconds = toBigInt(message.seconds);
  const nanos = Number(message.nanos ?? 0);
  const negative = seconds < 0n || nanos < 0;
  const absSeconds = seconds < 0n ? -seconds : seconds;
  return `"${negative ? '-' : ''}${absSeconds.toString()}${fraction(Math.abs(nanos))}s"`;
}

export type Writer = (value: unknown) => string;
export type MessageWriter = (message: Record<string, unknown>) => string;
