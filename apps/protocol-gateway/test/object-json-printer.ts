import { Enum, Field, Message, Root, Type } from 'protobufjs';
import { PrintError } from '../src/transcoding/json-printer';

// The object-building printer the gateway used before it printed JSON straight to a string, kept unchanged as the
// oracle of the string printer's tests: `JSON.stringify(new ObjectJsonPrinter(root).print(type, message))` is the
// exact body the gateway answered with, byte for byte.

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

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

/** 0, 3, 6 or 9 fractional digits, as Go's jsonpb and the canonical mapping print them. */
function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

function printTimestamp(message: Record<string, unknown>): string {
  const seconds = Number(toBigInt(message.seconds));
  const nanos = Number(message.nanos ?? 0);
  if (seconds < MIN_TIMESTAMP || seconds > MAX_TIMESTAMP || nanos < 0 || nanos > 999_999_999) {
    throw new PrintError('timestamp out of range');
  }
  const iso = new Date(seconds * 1000).toISOString(); // yyyy-mm-ddThh:mm:ss.000Z
  return `${iso.slice(0, 19)}${fraction(nanos)}Z`;
}

function printDuration(message: Record<string, unknown>): string {
  const seconds = toBigInt(message.seconds);
  const nanos = Number(message.nanos ?? 0);
  const negative = seconds < 0n || nanos < 0;
  const absSeconds = seconds < 0n ? -seconds : seconds;
  return `${negative ? '-' : ''}${absSeconds.toString()}${fraction(Math.abs(nanos))}s`;
}

function printFloat(value: number): Json {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return value;
}

function printBytes(value: unknown): Json {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64');
  return '';
}

type Writer = (value: unknown) => Json;
type MessageWriter = (message: Record<string, unknown>) => Json;

function int64(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  // A Long knows its signedness; its toString is exact and much cheaper than going through BigInt.
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

/**
 * Prints decoded messages as a Cosmos node's REST gateway does (gogoproto jsonpb with OrigName and EmitDefaults):
 * field names as declared in the .proto, every field including defaults, 64-bit integers as strings, enums by
 * name, bytes in standard base64, Timestamps in RFC 3339, Durations as "1.5s", Any with "@type". Unset message
 * fields print as null (jsonpb's EmitDefaults), where the canonical proto3 mapping would leave them out.
 *
 * Each message type is compiled once into a writer (one closure per field), so printing a page of 50 claims does
 * not re-inspect descriptors for every value.
 */
export class ObjectJsonPrinter {
  private readonly writers = new Map<string, MessageWriter>();

  constructor(private readonly root: Root) {}

  print(type: Type, message: Message | Record<string, unknown>): Json {
    return this.writerFor(type)(message as unknown as Record<string, unknown>);
  }

  private writerFor(type: Type): MessageWriter {
    const cached = this.writers.get(type.fullName);
    if (cached) return cached;
    // Registered before its fields are compiled, so recursive types resolve to the same writer.
    let compiled: MessageWriter | undefined;
    const writer: MessageWriter = (message) => (compiled ??= this.compile(type))(message);
    this.writers.set(type.fullName, writer);
    return writer;
  }

  private compile(type: Type): MessageWriter {
    switch (type.fullName) {
      case '.google.protobuf.Timestamp':
        return printTimestamp;
      case '.google.protobuf.Duration':
        return printDuration;
      case '.google.protobuf.Any':
        return (message) => this.any(message);
      case '.google.protobuf.Struct':
        return (message) => this.struct(message);
      case '.google.protobuf.Value':
        return (message) => this.value(message);
      case '.google.protobuf.ListValue':
        return (message) =>
          ((message.values as Record<string, unknown>[] | undefined) ?? []).map((item) => this.value(item));
      case '.google.protobuf.FieldMask':
        return (message) =>
          ((message.paths as string[] | undefined) ?? [])
            .map((path) => path.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase()))
            .join(',');
      case '.google.protobuf.Empty':
        return () => ({});
      default:
        break;
    }
    if (WRAPPERS.has(type.fullName)) {
      const inner = this.valueWriter(type.fields.value!);
      return (message) => inner(message.value);
    }
    const fields = type.fieldsArray.map((field) => ({
      name: field.name,
      oneof: field.partOf !== null,
      write: this.fieldWriter(field),
    }));
    return (message) => {
      const out: { [key: string]: Json } = {};
      for (const field of fields) {
        const value = message[field.name];
        // A oneof member (or proto3 optional) that is not set is absent from the JSON, as in jsonpb.
        if (
          field.oneof &&
          (value === undefined ||
            value === null ||
            !Object.prototype.hasOwnProperty.call(message, field.name))
        )
          continue;
        out[field.name] = field.write(value);
      }
      return out;
    };
  }

  private fieldWriter(field: Field): Writer {
    const one = this.valueWriter(field);
    if (field.map) {
      return (value) => {
        const out: { [key: string]: Json } = {};
        for (const [key, item] of Object.entries((value as Record<string, unknown> | undefined) ?? {}))
          out[key] = one(item);
        return out;
      };
    }
    if (field.repeated) return (value) => ((value as unknown[] | undefined) ?? []).map(one);
    return one;
  }

  /** Writer of one (non-repeated) value of `field`'s type. */
  private valueWriter(field: Field): Writer {
    const resolved = field.resolvedType;
    if (resolved instanceof Type) {
      const nested = this.writerFor(resolved);
      return (value) =>
        value === null || value === undefined ? null : nested(value as Record<string, unknown>);
    }
    if (resolved instanceof Enum) {
      const names = resolved.valuesById;
      return (value) => {
        const number = typeof value === 'number' ? value : Number(value ?? 0);
        return names[number] ?? number;
      };
    }
    if (SIXTY_FOUR.has(field.type)) return int64;
    switch (field.type) {
      case 'double':
      case 'float':
        return (value) => printFloat(Number(value ?? 0));
      case 'bool':
        return (value) => value === true;
      case 'string':
        return (value) => (typeof value === 'string' ? value : '');
      case 'bytes':
        return printBytes;
      default:
        return (value) => Number(value ?? 0);
    }
  }

  private any(message: Record<string, unknown>): Json {
    const typeUrl = String(message.type_url ?? '');
    if (typeUrl === '') return {};
    const name = typeUrl.slice(typeUrl.lastIndexOf('/') + 1);
    let type: Type;
    try {
      type = this.root.lookupType(name);
    } catch {
      throw new PrintError(`no descriptor for Any type ${name}`);
    }
    const bytes = message.value instanceof Uint8Array ? message.value : new Uint8Array();
    const inner = this.print(type, type.decode(bytes));
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner))
      return { '@type': typeUrl, ...inner };
    return { '@type': typeUrl, value: inner };
  }

  private struct(message: Record<string, unknown>): Json {
    const out: { [key: string]: Json } = {};
    for (const [key, item] of Object.entries(
      (message.fields as Record<string, Record<string, unknown>> | undefined) ?? {},
    )) {
      out[key] = this.value(item);
    }
    return out;
  }

  private value(message: Record<string, unknown>): Json {
    switch (message.kind) {
      case 'numberValue':
        return printFloat(Number(message.numberValue));
      case 'stringValue':
        return String(message.stringValue);
      case 'boolValue':
        return message.boolValue === true;
      case 'structValue':
        return this.struct(message.structValue as Record<string, unknown>);
      case 'listValue':
        return ((message.listValue as { values?: Record<string, unknown>[] }).values ?? []).map((item) =>
          this.value(item),
        );
      default:
        return null;
    }
  }
}
