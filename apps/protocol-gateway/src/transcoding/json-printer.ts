import { Enum, Field, Message, Root, Type } from 'protobufjs';
import { decodeAnswer } from './answer-decoder';
import { cosmosScalarOfField } from './cosmos-scalars';
import {
  bytesJson,
  cosmosScalarWriter,
  durationJson,
  floatJson,
  int64Json,
  isEmptyBytes,
  jsonString,
  MessageWriter,
  numberJson,
  PrintError,
  SIXTY_FOUR,
  timestampJson,
  Writer,
} from './json-text';

export { PrintError } from './json-text';

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
