import { Enum, Field, Message, Root, Type, util } from 'protobufjs';
import { decodeAnswer } from './answer-decoder';
import { CosmosScalar, cosmosScalarOfField, legacyDecText } from './cosmos-scalars';
import { utcDateTime } from './rfc3339';

/** A response that cannot be printed (e.g. an Any of a type we have no descriptor for). */
export class PrintError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PrintError';
  }
}

const SIXTY_FOUR = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const WRAPPERS = new Set([
  '.google.protobuf.DoubleValue',
  '.google.protobuf.FloatValue',
  '.google.protobuf.Int64Value',
  '.google.protobuf.UInt64Value',
  '.google.protobuf.Int32Value',
  '.google.protobuf.UInt32Value',
  '.google.protobuf.BoolValue',
  '.google.protobuf.StringValue',
  '.google.protobuf.BytesValue',
]);
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
function int64Json(value: unknown): string {
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
function jsonString(value: string): string {
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`;
}

/** JSON.stringify of a number: finite numbers print as JavaScript prints them, anything else as null. */
function numberJson(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** jsonpb prints the IEEE specials as strings. */
function floatJson(value: number): string {
  if (Number.isNaN(value)) return '"NaN"';
  if (value === Infinity) return '"Infinity"';
  if (value === -Infinity) return '"-Infinity"';
  return String(value);
}

/** Absent, or of length 0 (a Buffer, a base64 string, or the shared empty array protobufjs gives absent fields). */
function isEmptyBytes(value: unknown): boolean {
  return value === undefined || value === null || (value as { length?: unknown }).length === 0;
}

function bytesJson(value: unknown): string {
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

function cosmosScalarWriter(scalar: CosmosScalar, field: Field): Writer {
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

function timestampJson(message: Record<string, unknown>): string {
  const seconds = isLong(message.seconds) ? longToNumber(message.seconds) : Number(toBigInt(message.seconds));
  const nanos = Number(message.nanos ?? 0);
  if (seconds < MIN_TIMESTAMP || seconds > MAX_TIMESTAMP || nanos < 0 || nanos > 999_999_999) {
    throw new PrintError('timestamp out of range');
  }
  return `"${utcDateTime(seconds)}${fraction(nanos)}Z"`;
}

function durationJson(message: Record<string, unknown>): string {
  const seconds = toBigInt(message.seconds);
  const nanos = Number(message.nanos ?? 0);
  const negative = seconds < 0n || nanos < 0;
  const absSeconds = seconds < 0n ? -seconds : seconds;
  return `"${negative ? '-' : ''}${absSeconds.toString()}${fraction(Math.abs(nanos))}s"`;
}

type Writer = (value: unknown) => string;
type MessageWriter = (message: Record<string, unknown>) => string;

interface CompiledField {
  name: string;
  /** A oneof member (or proto3 optional): printed only when set. */
  oneof: boolean;
  write: Writer;
}

function messageWriter(fields: readonly CompiledField[]): MessageWriter {
  if (fields.length === 0) return () => '{}';
  const names = fields.map((field) => field.name);
  const writers = fields.map((field) => field.write);
  if (!fields.some((field) => field.oneof)) {
    // Every field is always printed, so each key comes with its separator.
    const keys = names.map((name, index) => `${index === 0 ? '{' : ','}${JSON.stringify(name)}:`);
    return (message) => {
      let out = '';
      for (let i = 0; i < keys.length; i += 1) out += keys[i]! + writers[i]!(message[names[i]!]);
      return `${out}}`;
    };
  }
  const keys = names.map((name) => `${JSON.stringify(name)}:`);
  const oneof = fields.map((field) => field.oneof);
  return (message) => {
    let out = '{';
    for (let i = 0; i < keys.length; i += 1) {
      const name = names[i]!;
      const value = message[name];
      // A oneof member (or proto3 optional) that is not set is absent from the JSON, as in jsonpb.
      if (
        oneof[i] &&
        (value === undefined || value === null || !Object.prototype.hasOwnProperty.call(message, name))
      )
        continue;
      out += (out.length === 1 ? keys[i]! : `,${keys[i]!}`) + writers[i]!(value);
    }
    return `${out}}`;
  };
}

/**
 * Prints decoded messages as a Cosmos node's REST gateway does (gogoproto jsonpb with OrigName and EmitDefaults):
 * field names as declared in the .proto, every field including defaults, 64-bit integers as strings, enums by
 * name, bytes in standard base64, Timestamps in RFC 3339, Durations as "1.5s", Any with "@type". Unset message
 * fields and empty bytes fields print as null (jsonpb's EmitDefaults on Go's nil values), where the canonical proto3
 * mapping would leave the first out and print "" for the second.
 *
 * Fields whose `(gogoproto.customtype)` is a Cosmos decimal (LegacyDec) print as the node's REST prints them, not as
 * the scaled integer their string carries on the wire (cosmos-scalars.ts).
 *
 * The result is the JSON text itself, written as the message is walked, so a response is not first built as an
 * object and then serialised a second time. Each message type is compiled once into a writer (one closure per
 * field), so printing a page of 50 claims does not re-inspect descriptors for every value.
 */
export class JsonPrinter {
  // Keyed by the descriptor itself: protobufjs computes `fullName` afresh on every read.
  private readonly writers = new Map<Type, MessageWriter>();

  constructor(
    private readonly root: Root,
    /** Protos whose customtype options stand in for those a node's descriptors lack (cosmos-scalars.ts). */
    private readonly fallback?: Root,
  ) {}

  /** The JSON text of `message`. */
  print(type: Type, message: Message | Record<string, unknown>): string {
    return this.writerFor(type)(message as unknown as Record<string, unknown>);
  }

  private writerFor(type: Type): MessageWriter {
    const cached = this.writers.get(type);
    if (cached) return cached;
    // Registered before its fields are compiled, so recursive types resolve to the same writer.
    let compiled: MessageWriter | undefined;
    const writer: MessageWriter = (message) => (compiled ??= this.compile(type))(message);
    this.writers.set(type, writer);
    return writer;
  }

  private compile(type: Type): MessageWriter {
    switch (type.fullName) {
      case '.google.protobuf.Timestamp':
        return timestampJson;
      case '.google.protobuf.Duration':
        return durationJson;
      case '.google.protobuf.Any':
        return (message) => this.any(message);
      case '.google.protobuf.Struct':
        return (message) => this.struct(message);
      case '.google.protobuf.Value':
        return (message) => this.value(message);
      case '.google.protobuf.ListValue':
        return (message) => this.list(message.values as Record<string, unknown>[] | undefined);
      case '.google.protobuf.FieldMask':
        return (message) =>
          jsonString(
            ((message.paths as string[] | undefined) ?? [])
              .map((path) => path.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()))
              .join(','),
          );
      case '.google.protobuf.Empty':
        return () => '{}';
      default:
        break;
    }
    if (WRAPPERS.has(type.fullName)) {
      const inner = this.valueWriter(type.fields.value!);
      return (message) => inner(message.value);
    }
    return messageWriter(
      type.fieldsArray.map((field) => ({
        name: field.name,
        oneof: field.partOf !== null,
        write: this.fieldWriter(field),
      })),
    );
  }

  private fieldWriter(field: Field): Writer {
    const scalar = cosmosScalarOfField(field, this.fallback);
    const one = scalar === undefined ? this.valueWriter(field) : cosmosScalarWriter(scalar, field);
    if (field.map) {
      // Keys in Object.entries order: integer-like keys first, as JSON.stringify orders an object's keys.
      return (value) => {
        let out = '{';
        for (const [key, item] of Object.entries((value as Record<string, unknown> | undefined) ?? {})) {
          out += `${out.length === 1 ? '' : ','}${jsonString(key)}:${one(item)}`;
        }
        return `${out}}`;
      };
    }
    if (field.repeated) {
      return (value) => {
        const items = (value as unknown[] | undefined) ?? [];
        if (items.length === 0) return '[]';
        let out = `[${one(items[0])}`;
        for (let i = 1; i < items.length; i += 1) out += `,${one(items[i])}`;
        return `${out}]`;
      };
    }
    if (field.type === 'bytes' && field.partOf === null && scalar === undefined) {
      // A Go node holds an empty bytes field as a nil slice, which its JSON marshaller prints as null
      // ("next_key": null). Set oneof members, list items and map values are empty but not nil: "".
      return (value) => (isEmptyBytes(value) ? 'null' : one(value));
    }
    return one;
  }

  /** Writer of one (non-repeated) value of `field`'s type. */
  private valueWriter(field: Field): Writer {
    const resolved = field.resolvedType;
    if (resolved instanceof Type) {
      const nested = this.writerFor(resolved);
      return (value) =>
        value === null || value === undefined ? 'null' : nested(value as Record<string, unknown>);
    }
    if (resolved instanceof Enum) {
      const names: Record<string, string> = {};
      for (const [id, name] of Object.entries(resolved.valuesById)) names[id] = JSON.stringify(name);
      return (value) => {
        const number = typeof value === 'number' ? value : Number(value ?? 0);
        // A number the descriptor does not name (a newer node's value) prints as the number.
        return names[number] ?? numberJson(number);
      };
    }
    if (SIXTY_FOUR.has(field.type)) return int64Json;
    switch (field.type) {
      case 'double':
      case 'float':
        return (value) => floatJson(Number(value ?? 0));
      case 'bool':
        return (value) => (value === true ? 'true' : 'false');
      case 'string':
        return (value) => (typeof value === 'string' ? jsonString(value) : '""');
      case 'bytes':
        return bytesJson;
      default:
        return (value) => numberJson(Number(value ?? 0));
    }
  }

  private any(message: Record<string, unknown>): string {
    const typeUrl = String(message.type_url ?? '');
    if (typeUrl === '') return '{}';
    const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    let type: Type;
    try {
      type = this.root.lookupType(name);
    } catch {
      throw new PrintError(`no descriptor for Any type ${name}`);
    }
    const bytes = message.value instanceof Uint8Array ? message.value : new Uint8Array();
    const inner = this.print(type, decodeAnswer(type, bytes));
    if (inner.startsWith('{')) {
      // Spread into one object with "@type" through a JavaScript object, so that the keys come in JavaScript's order
      // (integer-like keys of a Struct first) and an inner Any's "@type" is replaced by the outer one. Rare: no chain
      // message has an Any.
      return JSON.stringify({ '@type': typeUrl, ...(JSON.parse(inner) as Record<string, unknown>) });
    }
    return `{"@type":${jsonString(typeUrl)},"value":${inner}}`;
  }

  private struct(message: Record<string, unknown>): string {
    let out = '{';
    for (const [key, item] of Object.entries(
      (message.fields as Record<string, Record<string, unknown>> | undefined) ?? {},
    )) {
      out += `${out.length === 1 ? '' : ','}${jsonString(key)}:${this.value(item)}`;
    }
    return `${out}}`;
  }

  private list(values: Record<string, unknown>[] | undefined): string {
    return `[${(values ?? []).map((item) => this.value(item)).join(',')}]`;
  }

  private value(message: Record<string, unknown>): string {
    switch (message.kind) {
      case 'numberValue':
        return floatJson(Number(message.numberValue));
      case 'stringValue':
        return jsonString(String(message.stringValue));
      case 'boolValue':
        return message.boolValue === true ? 'true' : 'false';
      case 'structValue':
        return this.struct(message.structValue as Record<string, unknown>);
      case 'listValue':
        return this.list((message.listValue as { values?: Record<string, unknown>[] }).values);
      default:
        return 'null';
    }
  }
}
