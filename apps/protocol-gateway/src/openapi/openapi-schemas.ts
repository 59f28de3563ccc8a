import { Enum, Field, Type } from 'protobufjs';

export type Json = Record<string, unknown>;

const SIXTY_FOUR = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INTEGER_FORMAT: Record<string, string> = {
  int32: 'int32',
  sint32: 'int32',
  sfixed32: 'int32',
  uint32: 'int64',
  fixed32: 'int64',
};
const WRAPPED: Record<string, string> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};
/** The well-known types printed as JSON values of their own, not as objects of their fields. */
const WELL_KNOWN: Record<string, Json> = {
  '.google.protobuf.Timestamp': { type: 'string', format: 'date-time' },
  '.google.protobuf.Duration': { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', example: '86400s' },
  '.google.protobuf.FieldMask': { type: 'string' },
  '.google.protobuf.Struct': { type: 'object', additionalProperties: {} },
  '.google.protobuf.Value': {},
  '.google.protobuf.ListValue': { type: 'array', items: {} },
  '.google.protobuf.Any': {
    type: 'object',
    properties: { '@type': { type: 'string' } },
    additionalProperties: {},
  },
};
export const ERROR_SCHEMA = 'GrpcStatusError';

export const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
// OpenAPI 3.0's `nullable` widens the `type` beside it, so a reference (always to a message's object schema) is
// wrapped with that type stated: null or the message.
const nullable = (schema: Json): Json =>
  '$ref' in schema ? { type: 'object', allOf: [schema], nullable: true } : { ...schema, nullable: true };

/** JSON Schema of one scalar as the printer writes it (64-bit integers as decimal strings, bytes as base64). */
function scalarSchema(type: string): Json {
  if (SIXTY_FOUR.has(type))
    return { type: 'string', format: type.includes('u') ? 'uint64' : 'int64', pattern: '^-?[0-9]+$' };
  if (type in INTEGER_FORMAT) return { type: 'integer', format: INTEGER_FORMAT[type] };
  switch (type) {
    case 'double':
    case 'float':
      return { type: 'number', format: type };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', format: 'byte' };
    default:
      return { type: 'string' };
  }
}

/** An enum in the URL: by name (its number is accepted too). */
export function enumParameterSchema(type: Enum): Json {
  return { type: 'string', enum: Object.keys(type.values) };
}

/** An enum in an answer: by name, or as a number when the node sent a value our descriptor does not name. */
function enumSchema(type: Enum): Json {
  return {
    anyOf: [enumParameterSchema(type), { type: 'integer', description: 'a value without a name here' }],
  };
}

/** The `{code, message, details}` body of every failure. */
function errorSchema(): Json {
  return {
    type: 'object',
    description: 'grpc-gateway error body: the gRPC status code, a message, details (always empty here)',
    required: ['code', 'message', 'details'],
    properties: {
      code: { type: 'integer', format: 'int32', description: 'gRPC status code (5 = NOT_FOUND …)' },
      message: { type: 'string' },
      details: { type: 'array', items: {} },
    },
  };
}

/**
 * The document's `components.schemas`: the error body, then each message a route reaches, in the order the routes
 * first reach them, as the gateway prints it (every field present, unset messages and empty bytes null, 64-bit
 * integers as strings, enums by name).
 */
export class MessageSchemas {
  readonly schemas: Record<string, Json> = { [ERROR_SCHEMA]: errorSchema() };

  /** A reference to `type`'s schema, which is written on first use. */
  messageRef(type: Type): Json {
    const name = type.fullName.slice(1);
    if (!(name in this.schemas)) {
      this.schemas[name] = {}; // placeholder first: recursive messages refer to themselves
      this.schemas[name] = this.messageSchema(type);
    }
    return ref(name);
  }

  /** The schema of one (non-repeated) value of `field`'s type. */
  valueSchema(field: Field): Json {
    const resolved = field.resolvedType;
    if (resolved instanceof Enum) return enumSchema(resolved);
    if (resolved instanceof Type) return this.messageValue(resolved);
    return scalarSchema(field.type);
  }

  /** The schema of a message-typed value: well-known types as their JSON forms, others by reference. */
  private messageValue(type: Type): Json {
    const wrapped = WRAPPED[type.fullName];
    if (wrapped) return scalarSchema(wrapped);
    const known = WELL_KNOWN[type.fullName];
    return known ? structuredClone(known) : this.messageRef(type);
  }

  private messageSchema(type: Type): Json {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const field of type.fieldsArray) {
      let schema: Json;
      if (field.map) schema = { type: 'object', additionalProperties: this.valueSchema(field) };
      else if (field.repeated) schema = { type: 'array', items: this.valueSchema(field) };
      else if (field.resolvedType instanceof Type || field.type === 'bytes')
        schema = nullable(this.valueSchema(field));
      else schema = this.valueSchema(field);
      properties[field.name] = schema;
      // A oneof member or proto3 optional field is printed only when set; every other field always.
      if (field.partOf === null) required.push(field.name);
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  }
}
