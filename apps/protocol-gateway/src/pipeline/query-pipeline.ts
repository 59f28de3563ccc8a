import { Metadata, status } from '@grpc/grpc-js';
import { Logger } from '@nestjs/common';
import { AccessPolicy, selectorMatches } from '../access/access-policy';
import { Answer, AnswerCache, answerKey, notModified, PER_REQUEST_METADATA } from '../caching/answer-cache';
import { CachePolicy } from '../caching/cache-policy';
import { GatewayError } from '../errors/gateway-error';
import { GrpcCode, grpcCodeName, httpStatusForUpstream } from '../errors/grpc-status';
import { LegacyRoutes } from '../routes/legacy-routes';
import { Route, RouteMatch, RouteTable } from '../routes/route-table';
import { ServedRoutes } from '../routes/served-routes';
import { decodeAnswer } from '../transcoding/answer-decoder';
import { PrintError } from '../transcoding/json-printer';
import { bindRequest, BindError } from '../transcoding/query-binder';
import { UnknownFieldReport } from '../transcoding/unknown-field-report';
import { UnknownFieldScanner } from '../transcoding/unknown-fields';
import { ReflectionMonitor } from '../upstream/reflection-monitor';
import { UpstreamCallError } from '../upstream/upstream-client';
import { UpstreamPool } from '../upstream/upstream-pool';
import {
  answerHeaders,
  BLOCK_HEIGHT_HEADER,
  METADATA_HEADER_PREFIX,
  SentOnCall,
  sentOnCall,
} from './answer-headers';

export interface GatewayRequest {
  method: string;
  /** Path and query as received (still percent-encoded). */
  url: string;
  headers: Record<string, string | string[] | undefined>;
  requestId: string;
  /** Set by `handle` once the path matched a route: its template (`/ixo/entity/{id}`), for metrics and traces. */
  route: string | undefined;
}

export interface GatewayResponse {
  status: number;
  headers: Record<string, string>;
  /** The JSON text of the answer, ready to send. */
  body: string;
}

export interface QueryPipelineOptions {
  prefix: string;
  legacyPrefixes: readonly string[];
  disabledMethods: readonly string[];
  /** A query parameter that names no field is 400 (true) or ignored, as grpc-gateway ignores it (false). */
  strictQuery: boolean;
  /** Paths of older releases (REFERENCE §3): a 404 naming the current route, or served as that route. */
  legacyRoutes: '404' | 'serve';
}

// Metadata keys that gRPC or HTTP/2 own; a client must not be able to set them through Grpc-Metadata-*.
const RESERVED_METADATA =
  /^(grpc-|:)|^(content-type|te|user-agent|host|connection|content-length|transfer-encoding)$/;
const METADATA_KEY = /^[a-z0-9_.-]+$/;
/**
 * The most a path or query value may hold, in UTF-8 bytes once percent-decoded: Cosmos identifiers (addresses, DIDs,
 * denoms, base64 page keys) are a few hundred at most. Checked before anything is bound, asked or kept.
 */
export const PARAMETER_MAX_BYTES = 2048;
// Upstream codes whose message is the node's internal detail: the client gets ours, the log gets theirs.
const OPAQUE_UPSTREAM_CODES = new Set<number>([status.UNKNOWN, status.INTERNAL, status.DATA_LOSS]);

function firstValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function pathSegments(path: string): string[] {
  return path.split('/').filter((segment) => segment.length > 0);
}

function startsWithSegments(path: string, prefix: string): boolean {
  const want = pathSegments(prefix);
  const have = pathSegments(path);
  return want.length > 0 && want.every((segment, index) => have[index] === segment);
}

/**
 * One HTTP query through every stage: route from the proto annotations → access → request message from path and
 * query → unary gRPC call (identical concurrent questions share one, answers are kept: see AnswerCache) → JSON as a
 * Cosmos node prints it. Every failure is a GatewayError with a gRPC code.
 */
export class QueryPipeline {
  private readonly logger = new Logger('QueryPipeline');
  /** Whether DISABLED_METHODS names the route; per route object, so a rebuilt table is looked at afresh. */
  private readonly disabled = new WeakMap<Route, boolean>();
  /** The request of a route called without path values or query: always the same bytes. */
  private readonly emptyRequests = new WeakMap<Route, Buffer>();
  /** Legacy paths resolved against each route table (a rebuilt table gets its own). */
  private readonly legacy = new WeakMap<RouteTable, LegacyRoutes>();
  private readonly unknownFieldScanner = new UnknownFieldScanner();

  constructor(
    private readonly routes: ServedRoutes,
    private readonly upstream: UpstreamPool,
    private readonly reflection: ReflectionMonitor,
    private readonly access: AccessPolicy,
    private readonly unknownFields: UnknownFieldReport,
    private readonly options: QueryPipelineOptions,
    private readonly answers: AnswerCache,
    private readonly caching: CachePolicy,
  ) {}

  async handle(request: GatewayRequest): Promise<GatewayResponse> {
    const queryStart = request.url.indexOf('?');
    const path = queryStart === -1 ? request.url : request.url.slice(0, queryStart);
    const query = queryStart === -1 ? '' : request.url.slice(queryStart + 1);

    const matches = this.matchesFor(path);
    const match = matches.find((candidate) => candidate.route.httpMethod === request.method);
    if (!match) {
      const allow = [...new Set(matches.map((candidate) => candidate.route.httpMethod))].join(', ');
      throw new GatewayError({
        grpcCode: GrpcCode.UNIMPLEMENTED,
        message: `method ${request.method} is not allowed on ${path}; use ${allow}`,
        httpStatus: 405,
        headers: { allow },
      });
    }
    const { route, pathParams } = match;
    request.route = route.pattern;

    this.access.authorize(request.headers, route);
    if (this.isDisabled(route)) {
      throw new GatewayError({
        grpcCode: GrpcCode.UNIMPLEMENTED,
        message: `${route.fullMethod} is disabled on this gateway`,
      });
    }
    if (!this.reflection.isServed(route.service)) {
      throw new GatewayError({
        grpcCode: GrpcCode.UNIMPLEMENTED,
        message: `${route.service} is not served by the upstream node`,
      });
    }

    const payload = this.encode(route, pathParams, query);
    const metadata = this.metadataFor(request);
    const decision = this.caching.decide(metadata);
    const lookup = await this.answers.lookup(
      answerKey(route.grpcPath, payload, metadata),
      decision.retention,
      () => this.call(route, payload, metadata),
    );
    const { answer } = lookup;
    const headers = { ...answer.headers, ...this.caching.headers(lookup, decision) };
    if (notModified(firstValue(request.headers['if-none-match']), answer.etag))
      return { status: 304, headers, body: '' };
    return { status: answer.status, headers, body: answer.body };
  }

  private async call(route: Route, payload: Buffer, metadata: Metadata): Promise<Answer> {
    try {
      const result = await this.upstream.unary(route.grpcPath, payload, metadata);
      const sent = sentOnCall(metadata);
      const message = decodeAnswer(route.responseType, result.response);
      const unknown = this.unknownFieldScanner.scan(route.responseType, result.response);
      if (unknown.length > 0) this.unknownFields.report(route.fullMethod, unknown);
      return {
        status: 200,
        headers: answerHeaders(result.headers, result.trailers, sent),
        body: this.routes.printerFor(route).print(route.responseType, message),
      };
    } catch (error) {
      throw this.translate(error, route, sentOnCall(metadata));
    }
  }

  private isDisabled(route: Route): boolean {
    let disabled = this.disabled.get(route);
    if (disabled === undefined) {
      disabled = this.options.disabledMethods.some((selector) => selectorMatches(selector, route));
      this.disabled.set(route, disabled);
    }
    return disabled;
  }

  /** The routes `path` matches; a path of an older release is served as the current one or named in the 404. */
  private matchesFor(path: string): RouteMatch[] {
    const { table } = this.routes.current;
    const matches = table.matchPath(path);
    if (matches.length > 0) return matches;
    let legacyRoutes = this.legacy.get(table);
    if (legacyRoutes === undefined) {
      legacyRoutes = new LegacyRoutes(table);
      this.legacy.set(table, legacyRoutes);
    }
    const legacy = legacyRoutes.resolve(path);
    if (legacy && legacy.matches.length > 0 && this.options.legacyRoutes === 'serve') return legacy.matches;
    const served = `/${table.prefix}/`;
    let message = `no route for ${path}; this gateway serves the query routes under ${served} (see / for the list)`;
    if (legacy && legacy.matches.length > 0) {
      message = `${path} is a route of an older release; the current route is GET ${legacy.currentPath} (${legacy.matches[0]!.route.pattern})`;
    } else if (legacy) {
      message = `${legacy.legacyPrefix}/ is a route prefix of an older release; its routes are now under ${legacy.currentPrefix}/ (see / for the list)`;
    } else {
      const prefix = this.options.legacyPrefixes.find((candidate) => startsWithSegments(path, candidate));
      if (prefix)
        message = `${prefix} is a route prefix of an older release; this gateway serves the query routes under ${served} (see / for the list)`;
    }
    throw new GatewayError({ grpcCode: GrpcCode.NOT_FOUND, message });
  }

  private encode(route: Route, pathParams: Array<[string, string]>, query: string): Buffer {
    const queryParams = query === '' ? [] : [...new URLSearchParams(query)];
    for (const [name, value] of [...pathParams, ...queryParams]) {
      if (Buffer.byteLength(value) > PARAMETER_MAX_BYTES) {
        throw new GatewayError({
          grpcCode: GrpcCode.INVALID_ARGUMENT,
          message: `${name.slice(0, 100)} must be at most ${PARAMETER_MAX_BYTES} bytes`,
        });
      }
    }
    if (pathParams.length === 0 && query === '') {
      let bytes = this.emptyRequests.get(route);
      if (!bytes) {
        bytes = this.bind(route, pathParams, []);
        this.emptyRequests.set(route, bytes);
      }
      return bytes;
    }
    return this.bind(route, pathParams, queryParams);
  }

  private bind(route: Route, pathParams: Array<[string, string]>, query: Array<[string, string]>): Buffer {
    try {
      const plain = bindRequest(route.requestType, pathParams, query, {
        unknownParameters: this.options.strictQuery ? 'reject' : 'ignore',
      });
      const bytes = route.requestType.encode(route.requestType.fromObject(plain)).finish();
      // protobufjs' writer already hands out a fresh Buffer under Node; copying it again is waste.
      return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes);
    } catch (error) {
      if (error instanceof BindError)
        throw new GatewayError({ grpcCode: GrpcCode.INVALID_ARGUMENT, message: error.message });
      throw error;
    }
  }

  private metadataFor(request: GatewayRequest): Metadata {
    const metadata = new Metadata();
    for (const name of Object.keys(request.headers)) {
      if (name.startsWith(METADATA_HEADER_PREFIX)) {
        const text = firstValue(request.headers[name]);
        if (text === undefined) continue;
        const key = name.slice(METADATA_HEADER_PREFIX.length);
        // The request id and the trace context the node gets are the gateway's own (its span continues the
        // caller's W3C `traceparent` header): a caller's choice of them is not forwarded.
        if (PER_REQUEST_METADATA.has(key)) continue;
        if (!METADATA_KEY.test(key) || RESERVED_METADATA.test(key) || key.endsWith('-bin')) {
          throw new GatewayError({
            grpcCode: GrpcCode.INVALID_ARGUMENT,
            message: `header ${name} cannot be forwarded as gRPC metadata`,
          });
        }
        metadata.add(key, text);
      }
    }
    // The height asked for either way (the header wins) is checked and written one way only: `7` and `007` are one
    // question to the node, and must be one to the answer cache.
    const height = firstValue(request.headers[BLOCK_HEIGHT_HEADER]) ?? metadata.get(BLOCK_HEIGHT_HEADER)[0];
    if (height !== undefined) {
      const digits = String(height).trim();
      if (!/^\d{1,19}$/.test(digits)) {
        throw new GatewayError({
          grpcCode: GrpcCode.INVALID_ARGUMENT,
          message: `${BLOCK_HEIGHT_HEADER} must be a non-negative integer`,
        });
      }
      metadata.set(BLOCK_HEIGHT_HEADER, digits.replace(/^0+(?=\d)/, ''));
    }
    const authorization = firstValue(request.headers.authorization);
    if (authorization !== undefined && this.access.forwardsAuthorization)
      metadata.set('authorization', authorization);
    metadata.set('x-request-id', request.requestId);
    return metadata;
  }

  private translate(error: unknown, route: Route, sent: SentOnCall): GatewayError {
    if (error instanceof PrintError) {
      this.logger.error({ method: route.fullMethod, err: error }, 'response could not be printed');
      return new GatewayError({
        grpcCode: GrpcCode.INTERNAL,
        message: error.message,
        publicMessage: 'the upstream answer could not be converted to JSON',
      });
    }
    if (!(error instanceof UpstreamCallError)) {
      return new GatewayError({
        grpcCode: GrpcCode.INTERNAL,
        message: error instanceof Error ? error.message : String(error),
        publicMessage: 'internal error',
      });
    }
    const upstream = {
      grpcCode: error.code,
      message: error.details,
      headers: answerHeaders(error.headers, error.trailers, sent),
    };
    if (error.code === status.UNAVAILABLE) {
      // The upstream's address is deployment detail: it goes to the log with the status, not to the client.
      return new GatewayError({ ...upstream, publicMessage: 'the upstream node is unavailable' });
    }
    if (error.code === status.DEADLINE_EXCEEDED) {
      return new GatewayError({
        ...upstream,
        publicMessage: `the upstream node did not answer within ${this.upstream.deadlineMs} ms`,
      });
    }
    if (error.code === status.UNIMPLEMENTED) {
      return new GatewayError({
        ...upstream,
        publicMessage: `${route.fullMethod} is not implemented by the upstream node`,
      });
    }
    const httpStatus = httpStatusForUpstream(error.code, error.details);
    if (httpStatus === 404) return new GatewayError({ ...upstream, grpcCode: GrpcCode.NOT_FOUND });
    if (OPAQUE_UPSTREAM_CODES.has(error.code)) {
      return new GatewayError({
        ...upstream,
        httpStatus,
        publicMessage: `the upstream node failed (${grpcCodeName(error.code)})`,
      });
    }
    return new GatewayError({ ...upstream, httpStatus });
  }
}
