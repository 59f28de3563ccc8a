import type { Route, RouteTable } from '../routes/route-table';
import { openApiPath, pathParameters, queryParameters } from './openapi-parameters';
import { ERROR_SCHEMA, Json, MessageSchemas, ref } from './openapi-schemas';

export interface OpenApiInfo {
  title: string;
  version: string;
  /** How callers authenticate (ACCESS_MODE, API_KEY_HEADER); without it, or `open`, nobody needs to. */
  access?: { mode: 'open' | 'api-key'; header: string };
}

const errorResponse = (description: string): Json => ({
  description,
  content: { 'application/json': { schema: ref(ERROR_SCHEMA) } },
});

/** The GET operation of one route: its parameters, its answer's schema and the failures it can end in. */
function operation(route: Route, schemas: MessageSchemas): Json {
  const bound = new Set(route.template.variables.map((variable) => variable.fieldPath));
  const parameters = pathParameters(route, schemas);
  return {
    operationId: route.fullMethod.replace(/[./]/g, '_'),
    summary: route.fullMethod,
    tags: [route.service],
    parameters: [...parameters, ...queryParameters(route.requestType, bound, schemas)],
    responses: {
      '200': {
        description: `${route.responseType.fullName.slice(1)}, printed as a Cosmos node prints it`,
        content: { 'application/json': { schema: schemas.messageRef(route.responseType) } },
      },
      '400': errorResponse('a path or query value that cannot be bound'),
      '404': errorResponse('not found, or a path of an older release (the message names the current route)'),
      '501': errorResponse('not implemented or not served by the upstream node, or disabled on this gateway'),
      '503': errorResponse('the upstream node is unavailable'),
      '504': errorResponse('the upstream node did not answer in time'),
      default: errorResponse('any other failure, with the gRPC status code'),
    },
  };
}

/**
 * The header the access policy reads (`Authorization` takes the key as a bearer token); open mode needs nothing
 * (`{}`: no credentials).
 */
function securityScheme(info: OpenApiInfo): Json | undefined {
  if (info.access?.mode !== 'api-key') return undefined;
  const header = info.access.header;
  return header.toLowerCase() === 'authorization'
    ? { type: 'http', scheme: 'bearer', description: 'an API key of API_KEYS as the bearer token' }
    : { type: 'apiKey', in: 'header', name: header, description: 'an API key of API_KEYS' };
}

/**
 * The OpenAPI 3.0 document of a route table: one GET operation per route with its path and query parameters (typed
 * from the request message, nested fields as `a.b`), the response schema of its message as the gateway prints it
 * (every field present, unset messages and empty bytes null, 64-bit integers as strings, enums by name), and the
 * `{code, message, details}` error body. Pure: the same table gives the same document.
 */
export function buildOpenApiDocument(routes: RouteTable, info: OpenApiInfo): Json {
  const schemas = new MessageSchemas();
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes.routes)
    (paths[openApiPath(route)] ??= {})[route.httpMethod.toLowerCase()] = operation(route, schemas);
  const apiKey = securityScheme(info);
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
    security: apiKey ? [{ apiKey: [] }] : [{}],
    paths,
    components: apiKey
      ? { schemas: schemas.schemas, securitySchemes: { apiKey } }
      : { schemas: schemas.schemas },
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
