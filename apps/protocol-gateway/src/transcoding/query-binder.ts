import { Enum, Field, Type } from 'protobufjs';

/** A request value that cannot be bound; the gateway answers 400 INVALID_ARGUMENT with this message. */
export class BindError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BindError';
  }
}

type Plain = Record<string, unknown>;

const INT32 = new Set(['int32', 'sint32', 'sfixed32']);
const UINT32 = new Set(['uint32', 'fixed32']);
const INT64 = new Set(['int64', 'sint64', 'sfixed64']);
const UINT64 = new Set(['uint64', 'fixed64']);
const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;
// strconv.ParseBool, which grpc-gateway uses, accepts exactly these.
const TRUE = new Set(['true', 'True', 'TRUE', 't', 'T', '1']);
const FALSE = new Set(['false', 'False', 'FALSE', 'f', 'F', '0']);
const WRAPPERS = new Map([
  ['.google.protobuf.DoubleValue', 'double'],
  ['.google.protobuf.FloatValue', 'float'],
  ['.google.protobuf.Int64Value', 'int64'],
  ['.google.protobuf.UInt64Value', 'uint64'],
  ['.google.protobuf.Int32Value', 'int32'],
  ['.google.protobuf.UInt32Value', 'uint32'],
  ['.google.protobuf.BoolValue', 'bool'],
  ['.google.protobuf.StringValue', 'string'],
  ['.google.protobuf.BytesValue', 'bytes'],
]);

/** Message types the URL sets from one text (`at=2024-01-01T00:00:00Z`, a wrapper by its value), not field by field. */
export function isTextMessage(fullName: string): boolean {
  return (
    fullName === '.google.protobuf.Timestamp' ||
    fullName === '.google.protobuf.Duration' ||
    WRAPPERS.has(fullName)
  );
}

/** proto3 JSON name: `count_total` → `countTotal`. */
export function jsonName(protoName: string): string {
  return protoName.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

function findField(type: Type, name: string): Field | undefined {
  // `fields` is a plain object: without the own-property check `__proto__` or `constructor` would find
  // Object.prototype's members instead of being unknown parameters.
  const byProtoName = Object.hasOwn(type.fields, name) ? type.fields[name] : undefined;
  return byProtoName ?? type.fieldsArray.find((field) => jsonName(field.name) === name);
}

function parseInteger(text: string, min: bigint, max: bigint, what: string, path: string): bigint {
  if (!/^-?\d+$/.test(text)) throw new BindError(`${path}: ${JSON.stringify(text)} is not a valid ${what}`);
  const value = BigInt(text);
  if (value < min || value > max) throw new BindError(`${path}: ${text} is out of range for ${what}`);
  return value;
}

/** Standard or URL-safe base64, padded or not (clients often forget to percent-encode `+ / =`). */
export function decodeBase64(text: string, path: string): Buffer {
  const normalized = text.replace(/-/g, '+').replace(/_/g, '/').replace(/ /g, '+');
  const unpadded = normalized.replace(/=+$/, '');
  if (
    !/^[A-Za-z0-9+/]*$/.test(unpadded) ||
    unpadded.length % 4 === 1 ||
    normalized.length - unpadded.length > 2
  ) {
    throw new BindError(`${path}: not valid base64`);
  }
  return Buffer.from(unpadded, 'base64');
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function parseTimestamp(text: string, path: string): Plain {
  const match = RFC3339.exec(text);
  const millis = match
    ? Date.parse(
        `${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}${match[8]!.toUpperCase()}`,
      )
    : NaN;
  if (!match || Number.isNaN(millis))
    throw new BindError(`${path}: ${JSON.stringify(text)} is not an RFC 3339 timestamp`);
  const nanos = match[7] ? Number(match[7].slice(1).padEnd(9, '0')) : 0;
  return { seconds: String(Math.floor(millis / 1000)), nanos };
}

function parseDuration(text: string, path: string): Plain {
  const match = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new BindError(`${path}: ${JSON.stringify(text)} is not a duration such as "1.5s"`);
  const sign = match[1] ? -1 : 1;
  const seconds = BigInt(match[2]!) * BigInt(sign);
  const nanos = match[3] ? Number(match[3].padEnd(9, '0')) * sign : 0;
  return { seconds: seconds.toString(), nanos };
}

function parseEnum(enumType: Enum, text: string, path: string): number {
  if (Object.prototype.hasOwnProperty.call(enumType.values, text)) return enumType.values[text]!;
  if (/^-?\d+$/.test(text)) {
    const number = Number(text);
    if (Object.values(enumType.values).includes(number)) return number;
  }
  throw new BindError(
    `${path}: ${JSON.stringify(text)} is not a value of ${enumType.name} (${Object.keys(enumType.values).join(', ')})`,
  );
}

/** One scalar of `type` from its text form; the result is what protobufjs' fromObject accepts. */
export function parseScalar(type: string, text: string, path: string): unknown {
  if (INT32.has(type)) return Number(parseInteger(text, -(2n ** 31n), 2n ** 31n - 1n, type, path));
  if (UINT32.has(type)) return Number(parseInteger(text, 0n, 2n ** 32n - 1n, type, path));
  // 64-bit integers stay decimal strings: protobufjs turns them into Longs without going through a double.
  if (INT64.has(type)) return parseInteger(text, MIN_INT64, MAX_INT64, type, path).toString();
  if (UINT64.has(type)) return parseInteger(text, 0n, MAX_UINT64, type, path).toString();
  switch (type) {
    case 'string':
      return text;
    case 'bool':
      if (TRUE.has(text)) return true;
      if (FALSE.has(text)) return false;
      throw new BindError(`${path}: ${JSON.stringify(text)} is not a boolean`);
    case 'double':
    case 'float': {
      if (text === 'NaN') return NaN;
      if (text === 'Infinity' || text === '+Infinity') return Infinity;
      if (text === '-Infinity') return -Infinity;
      const value = Number(text);
      if (text.trim() === '' || !Number.isFinite(value))
        throw new BindError(`${path}: ${JSON.stringify(text)} is not a number`);
      return value;
    }
    case 'bytes':
      return decodeBase64(text, path);
    default:
      throw new BindError(`${path}: fields of type ${type} cannot be set from the URL`);
  }
}

function parseValue(field: Field, text: string, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof Enum) return parseEnum(resolved, text, path);
  if (resolved instanceof Type) {
    const fullName = resolved.fullName;
    if (fullName === '.google.protobuf.Timestamp') return parseTimestamp(text, path);
    if (fullName === '.google.protobuf.Duration') return parseDuration(text, path);
    const wrapped = WRAPPERS.get(fullName);
    if (wrapped) return { value: parseScalar(wrapped, text, path) };
    throw new BindError(
      `${path}: message fields cannot be set from the URL; set their fields (${path}.<field>)`,
    );
  }
  return parseScalar(field.type, text, path);
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !Buffer.isBuffer(value);
}

export interface BindOptions {
  /**
   * A query parameter that names no field: `ignore` it, as grpc-gateway does (clients add cache-busters and
   * parameters of other versions), or `reject` it (400), which catches typos such as `pagination.limt`.
   */
  unknownParameters: 'ignore' | 'reject';
}

/**
 * Binds a request message from the path (first) and the query string, as grpc-gateway does: `a.b` for nested
 * fields, proto or camelCase names, repeated keys for repeated fields, enums by name or number, 64-bit integers
 * from decimal strings, bytes from standard or URL-safe base64. A parameter that repeats a path field, or a second
 * value for a singular field is an error (400), not ignored.
 */
export class RequestBinder {
  private readonly message: Plain = {};
  private readonly fromPath = new Set<string>();
  private readonly oneofsSet = new Map<string, string>();

  constructor(
    private readonly type: Type,
    private readonly options: BindOptions = { unknownParameters: 'reject' },
  ) {}

  bindPath(fieldPath: string, value: string): this {
    const canonical = this.assign(fieldPath.split('.'), value, 'path');
    this.fromPath.add(canonical);
    return this;
  }

  bindQuery(key: string, value: string): this {
    this.assign(key.split('.'), value, 'query');
    return this;
  }

  /** The plain object for `type.fromObject`. */
  result(): Plain {
    return this.message;
  }

  /** Whether `a.b.c` names a field: every part a field of the message the previous one is. */
  private names(parts: readonly string[]): boolean {
    let type: Type | undefined = this.type;
    for (const part of parts) {
      const field: Field | undefined = type ? findField(type, part) : undefined;
      if (!field) return false;
      type = field.resolvedType instanceof Type && !field.repeated ? field.resolvedType : undefined;
    }
    return true;
  }

  private assign(parts: string[], text: string, source: 'path' | 'query'): string {
    const written = parts.join('.');
    if (source === 'query' && this.options.unknownParameters === 'ignore' && !this.names(parts))
      return written;
    let type = this.type;
    let target = this.message;
    const canonical: string[] = [];
    for (let i = 0; i < parts.length; i += 1) {
      const field = findField(type, parts[i]!);
      if (!field)
        throw new BindError(`unknown ${source === 'path' ? 'path field' : 'query parameter'} ${written}`);
      if (field.map) throw new BindError(`${written}: map fields cannot be set from the URL`);
      canonical.push(field.name);
      const last = i === parts.length - 1;
      const path = canonical.join('.');
      if (source === 'query' && this.fromPath.has(path))
        throw new BindError(`${written} is already given by the path`);
      if (field.partOf && !field.partOf.name.startsWith('_')) {
        const key = `${canonical.slice(0, -1).join('.')}#${field.partOf.name}`;
        const other = this.oneofsSet.get(key);
        if (other !== undefined && other !== path)
          throw new BindError(`${written}: only one of ${field.partOf.oneof.join(', ')} may be set`);
        this.oneofsSet.set(key, path);
      }
      if (last) {
        const value = parseValue(field, text, written);
        if (field.repeated) {
          const list = (target[field.name] as unknown[] | undefined) ?? [];
          list.push(value);
          target[field.name] = list;
        } else {
          if (field.name in target) throw new BindError(`${written} is given more than once`);
          target[field.name] = value;
        }
        return path;
      }
      const nested = field.resolvedType;
      if (!(nested instanceof Type) || field.repeated)
        throw new BindError(`${written}: ${field.name} has no field ${parts[i + 1]}`);
      const existing = target[field.name];
      if (existing !== undefined && !isPlain(existing))
        throw new BindError(`${written} conflicts with ${path}`);
      const child: Plain = existing ?? {};
      target[field.name] = child;
      target = child;
      type = nested;
    }
    return canonical.join('.');
  }
}

/** Path parameters first, then the query, into a plain request object. */
export function bindRequest(
  type: Type,
  pathParams: ReadonlyArray<[string, string]>,
  query: ReadonlyArray<[string, string]>,
  options?: BindOptions,
): Plain {
  const binder = new RequestBinder(type, options);
  for (const [field, value] of pathParams) binder.bindPath(field, value);
  for (const [key, value] of query) binder.bindQuery(key, value);
  return binder.result();
}
