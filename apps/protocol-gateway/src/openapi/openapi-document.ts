import { Enum, Field, Type } from 'protobufjs';
import type { Route, RouteTable } from '../routes/route-table';
import { isTextMessage, jsonName } from '../transcoding/query-binder';

type Json = Record<string, unknown>;

export interface OpenApiInfo {
  title: string;
  version: string;
  /** How callers authenticate (ACCESS_MODE, API_KEY_HEADER); without it, or `open`, nobody needs to. */
  access?: { mode: 'open' | 'api-key'; header: string };
}

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
// Nested query keys deeper than this are left out of the document (the binder still takes them).
const MAX_QUERY_DEPTH = 3;
const ERROR_SCHEMA = 'GrpcStatusError';

const ref = (name: string): Json => ({ $ref: `#/components/schemas/${name}` });
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
function enumParameterSchema(type: Enum): Json {
  return { type: 'string', enum: Object.keys(type.values) };
}

/** An enum in an answer: by name, or as a number when the node sent a value our descriptor does not name. */
function enumSchema(type: Enum): Json {
  return {
    anyOf: [enumParameterSchema(type), { type: 'integer', description: 'a value without a name here' }],
  };
}

/** `/ixo/claims/intent/{agentAddress}/{collectionId}/{id}`: a variable spanning several segments becomes one. */
function openApiPath(route: Route): string {
  const { segments, variables, verb } = route.template;
  const parts: string[] = [];
  for (let index = 0; index < segments.length; index += 1) {
    const variable = variables.find((candidate) => candidate.start === index);
    if (variable) {
      parts.push(`{${variable.fieldPath}}`);
      index = variable.end - 1;
      continue;
    }
    const segment = segments[index]!;
    parts.push(segment.kind === 'literal' ? segment.value : segment.kind === 'wildcard' ? '*' : '**');
  }
  return `/${parts.join('/')}${verb ? `:${verb}` : ''}`;
}

function fieldAt(type: Type, fieldPath: string): Field | undefined {
  let current: Type | undefined = type;
  let field: Field | undefined;
  for (const part of fieldPath.split('.')) {
    field = current?.fields[part];
    current = field?.resolvedType instanceof Type ? field.resolvedType : undefined;
  }
  return field;
}

/**
 * The OpenAPI 3.0 document of a route table: one GET operation per route with its path and query parameters (typed
 * from the request message, nested fields as `a.b`), the response schema of its message as the gateway prints it
 * (every field present, unset messages and empty bytes null, 64-bit integers as strings, enums by name), and the
 * `{code, message, details}` error body. Pure: the same table gives the same document.
 */
export function buildOpenApiDocument(routes: RouteTable, info: OpenApiInfo): Json {
  const schemas: Record<string, Json> = {
    [ERROR_SCHEMA]: {
      type: 'object',
      description: 'grpc-gateway error body: the gRPC status code, a message, details (always empty here)',
      required: ['code', 'message', 'details'],
      properties: {
        code: { type: 'integer', format: 'int32', description: 'gRPC status code (5 = NOT_FOUND …)' },
        message: { type: 'string' },
        details: { type: 'array', items: {} },
      },
    },
  };

  const messageRef = (type: Type): Json => {
    const name = type.fullName.slice(1);
    if (!(name in schemas)) {
      schemas[name] = {}; // placeholder first: recursive messages refer to themselves
      schemas[name] = messageSchema(type);
    }
    return ref(name);
  };

  /** The schema of a message-typed value: well-known types as their JSON forms, others by reference. */
  const messageValue = (type: Type): Json => {
    const wrapped = WRAPPED[type.fullName];
    if (wrapped) return scalarSchema(wrapped);
    switch (type.fullName) {
      case '.google.protobuf.Timestamp':
        return { type: 'string', format: 'date-time' };
      case '.google.protobuf.Duration':
        return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$', example: '86400s' };
      case '.google.protobuf.FieldMask':
        return { type: 'string' };
      case '.google.protobuf.Struct':
        return { type: 'object', additionalProperties: {} };
      case '.google.protobuf.Value':
        return {};
      case '.google.protobuf.ListValue':
        return { type: 'array', items: {} };
      case '.google.protobuf.Any':
        return { type: 'object', properties: { '@type': { type: 'string' } }, additionalProperties: {} };
      default:
        return messageRef(type);
    }
  };

  const valueSchema = (field: Field): Json => {
    const resolved = field.resolvedType;
    if (resolved instanceof Enum) return enumSchema(resolved);
    if (resolved instanceof Type) return messageValue(resolved);
    return scalarSchema(field.type);
  };

  function messageSchema(type: Type): Json {
    const properties: Record<string, Json> = {};
    const required: string[] = [];
    for (const field of type.fieldsArray) {
      let schema: Json;
      if (field.map) schema = { type: 'object', additionalProperties: valueSchema(field) };
      else if (field.repeated) schema = { type: 'array', items: valueSchema(field) };
      else if (field.resolvedType instanceof Type || field.type === 'bytes')
        schema = nullable(valueSchema(field));
      else schema = valueSchema(field);
      properties[field.name] = schema;
      // A oneof member or proto3 optional field is printed only when set; every other field always.
      if (field.partOf === null) required.push(field.name);
    }
    return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
  }

  /** Query parameters of `type` not bound by the path: scalars, enums, text-set messages, nested fields as `a.b`. */
  const queryParameters = (type: Type, bound: ReadonlySet<string>, prefix = '', depth = 0): Json[] => {
    const parameters: Json[] = [];
    for (const field of type.fieldsArray) {
      const path = `${prefix}${field.name}`;
      if (bound.has(path) || field.map) continue;
      const resolved = field.resolvedType;
      if (resolved instanceof Type && !isTextMessage(resolved.fullName)) {
        if (!field.repeated && depth < MAX_QUERY_DEPTH)
          parameters.push(...queryParameters(resolved, bound, `${path}.`, depth + 1));
        continue;
      }
      const value = resolved instanceof Enum ? enumParameterSchema(resolved) : valueSchema(field);
      const alias = `${prefix}${jsonName(field.name)}`;
      parameters.push({
        name: path,
        in: 'query',
        required: false,
        ...(alias !== path ? { description: `also accepted as ${alias}` } : {}),
        schema: field.repeated ? { type: 'array', items: value } : value,
        ...(field.repeated ? { style: 'form', explode: true } : {}),
      });
    }
    return parameters;
  };

  const paths: Record<string, Record<string, Json>> = {};
  const errorResponse = (description: string): Json => ({
    description,
    content: { 'application/json': { schema: ref(ERROR_SCHEMA) } },
  });
  for (const route of routes.routes) {
    const path = openApiPath(route);
    const bound = new Set(route.template.variables.map((variable) => variable.fieldPath));
    const pathParameters = route.template.variables.map((variable) => {
      const field = fieldAt(route.requestType, variable.fieldPath);
      const resolved = field?.resolvedType;
      return {
        name: variable.fieldPath,
        in: 'path',
        required: true,
        schema: !field
          ? { type: 'string' }
          : resolved instanceof Enum
            ? enumParameterSchema(resolved)
            : valueSchema(field),
      };
    });
    (paths[path] ??= {})[route.httpMethod.toLowerCase()] = {
      operationId: route.fullMethod.replace(/[./]/g, '_'),
      summary: route.fullMethod,
      tags: [route.service],
      parameters: [...pathParameters, ...queryParameters(route.requestType, bound)],
      responses: {
        '200': {
          description: `${route.responseType.fullName.slice(1)}, printed as a Cosmos node prints it`,
          content: { 'application/json': { schema: messageRef(route.responseType) } },
        },
        '400': errorResponse('a path or query value that cannot be bound'),
        '404': errorResponse(
          'not found, or a path of an older release (the message names the current route)',
        ),
        '501': errorResponse(
          'not implemented or not served by the upstream node, or disabled on this gateway',
        ),
        '503': errorResponse('the upstream node is unavailable'),
        '504': errorResponse('the upstream node did not answer in time'),
        default: errorResponse('any other failure, with the gRPC status code'),
      },
    };
  }

  // The header the access policy reads (`Authorization` takes the key as a bearer token); open mode needs nothing
  // (`{}`: no credentials).
  const header = info.access?.header ?? 'x-api-key';
  const keyed = info.access?.mode === 'api-key';
  const apiKey =
    header.toLowerCase() === 'authorization'
      ? { type: 'http', scheme: 'bearer', description: 'an API key of API_KEYS as the bearer token' }
      : { type: 'apiKey', in: 'header', name: header, description: 'an API key of API_KEYS' };
  return {
    openapi: '3.0.3',
    info: {
      title: info.title,
      version: info.version,
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
      description:
        'REST/JSON gateway to the chain node gRPC query services (grpc-gateway compatible). Generated from the ' +
        'descriptors of the routes this gateway serves.',
    },
    servers: [{ url: '/', description: 'this gateway' }],
    security: keyed ? [{ apiKey: [] }] : [{}],
    paths,
    components: keyed ? { schemas, securitySchemes: { apiKey } } : { schemas },
  };
}

/** The document of whichever route table is current, built once per table (a new table is a new version). */
export class OpenApiDocuments {
  private readonly built = new WeakMap<RouteTable, Json>();

  constructor(
    private readonly currentRoutes: () => RouteTable,
    private readonly info: OpenApiInfo,
  ) {}

  current(): Json {
    const routes = this.currentRoutes();
    let document = this.built.get(routes);
    if (!document) {
      document = buildOpenApiDocument(routes, this.info);
      this.built.set(routes, document);
    }
    return document;
  }
}
