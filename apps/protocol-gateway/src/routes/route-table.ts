import type { Method, Root, Service, Type } from 'protobufjs';
import { parsePathTemplate, PathTemplate, TemplateSegment } from './path-template';

/** The first path segment of every annotated route in our protos; the gateway mounts it at PROTOCOL_PREFIX. */
export const ANNOTATION_PREFIX = 'ixo';

export interface Route {
  /** `ixo.claims.v1beta1.Query`, without protobufjs' leading dot. */
  service: string;
  method: string;
  /** `ixo.claims.v1beta1.Query/Claim`, the selector used in configuration. */
  fullMethod: string;
  /** `/ixo.claims.v1beta1.Query/Claim`, the gRPC path. */
  grpcPath: string;
  httpMethod: string;
  /** The path as served, after the prefix was applied. */
  pattern: string;
  template: PathTemplate;
  requestType: Type;
  responseType: Type;
  /** Where the route was learnt: the node's own descriptors (server reflection) or the protos we are built with. */
  source: RouteSource;
}

export type RouteSource = 'reflection' | 'compiled-in';

/** Services whose annotated methods become routes, from one set of descriptors. */
export interface RouteSourceSet {
  root: Root;
  services: readonly string[];
  source: RouteSource;
}

/** Why an advertised HTTP binding is not served. */
export type SkipReason =
  /** Any verb but GET: the gateway is read-only whatever a node advertises (`POST /cosmos/tx/v1beta1/txs`). */
  | 'not-get'
  /** A path template that does not parse (`get: "/"`). */
  | 'invalid-template'
  /** A GET with a request `body` or a `response_body`, which this gateway does not transcode; or a streaming method. */
  | 'unsupported';

export const SKIP_REASONS: readonly SkipReason[] = ['not-get', 'invalid-template', 'unsupported'];

/** An HTTP binding of the descriptors that is not a route, and why. */
export interface SkippedBinding {
  fullMethod: string;
  /** `POST /cosmos/tx/v1beta1/txs`, as advertised (before the prefix is applied). */
  binding: string;
  reason: SkipReason;
  detail: string;
}

export interface RouteMatch {
  route: Route;
  /** Field path → raw (percent-decoded) value from the path. */
  pathParams: Array<[string, string]>;
}

interface HttpRuleOption {
  body?: string;
  response_body?: string;
  get?: string;
  put?: string;
  post?: string;
  delete?: string;
  patch?: string;
  custom?: { kind?: string; path?: string };
  additional_bindings?: HttpRuleOption | HttpRuleOption[];
}

function httpRules(method: Method): HttpRuleOption[] {
  const rules: HttpRuleOption[] = [];
  for (const option of method.parsedOptions ?? []) {
    const rule = (option as Record<string, unknown>)['(google.api.http)'] as HttpRuleOption | undefined;
    if (!rule) continue;
    rules.push(rule);
    const extra = rule.additional_bindings;
    if (extra) rules.push(...(Array.isArray(extra) ? extra : [extra]));
  }
  return rules;
}

function verbAndPath(rule: HttpRuleOption): [string, string] | undefined {
  for (const verb of ['get', 'put', 'post', 'delete', 'patch'] as const) {
    const path = rule[verb];
    if (typeof path === 'string') return [verb.toUpperCase(), path];
  }
  if (typeof rule.custom?.kind === 'string' && typeof rule.custom.path === 'string')
    return [`CUSTOM ${rule.custom.kind}`, rule.custom.path];
  return undefined;
}

/** Why `rule` (bound as `verb`) cannot be served; undefined when it can. */
function unservable(verb: string, rule: HttpRuleOption): [SkipReason, string] | undefined {
  if (verb !== 'GET') return ['not-get', 'only GET bindings are served: the gateway is read-only'];
  // grpc-gateway prints only the named field of the answer, and a GET carries no body: served as the whole message
  // from the query string, either would answer differently from the node's own REST.
  if (typeof rule.body === 'string' && rule.body !== '')
    return ['unsupported', 'a GET binding with a request body'];
  if (typeof rule.response_body === 'string' && rule.response_body !== '')
    return ['unsupported', 'response_body is not supported'];
  return undefined;
}

/** An annotated path (`/ixo/…`) as served under `prefix`; other paths stay as they are. */
export function mount(path: string, prefix: string): string {
  const first = `/${ANNOTATION_PREFIX}/`;
  if (!path.startsWith(first)) return path;
  return `/${prefix}/${path.slice(first.length)}`;
}

/** Literal beats `*`, which beats `**`; earlier segments weigh more (a route is more specific left to right). */
function rank(segment: TemplateSegment): number {
  switch (segment.kind) {
    case 'literal':
      return 0;
    case 'wildcard':
      return 1;
    case 'rest':
      return 2;
  }
}

function compareSpecificity(a: Route, b: Route): number {
  const length = Math.max(a.template.segments.length, b.template.segments.length);
  for (let i = 0; i < length; i += 1) {
    const left = a.template.segments[i];
    const right = b.template.segments[i];
    if (!left || !right) return left ? -1 : 1;
    const difference = rank(left) - rank(right);
    if (difference !== 0) return difference;
  }
  return 0;
}

function decodeSegment(raw: string): string | undefined {
  if (!raw.includes('%')) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

function endsWithRest(route: Route): boolean {
  return route.template.segments[route.template.segments.length - 1]?.kind === 'rest';
}

function matchSegments(route: Route, parts: string[]): RouteMatch | undefined {
  const { segments, variables, verb } = route.template;
  const last = parts[parts.length - 1];
  let own = parts;
  if (verb !== undefined) {
    if (last === undefined || !last.endsWith(`:${verb}`)) return undefined;
    own = [...parts.slice(0, -1), last.slice(0, -verb.length - 1)];
  }
  const hasRest = segments[segments.length - 1]?.kind === 'rest';
  if (hasRest ? own.length < segments.length - 1 : own.length !== segments.length) return undefined;
  for (let i = 0; i < segments.length; i += 1) {
    const segment = segments[i]!;
    if (segment.kind === 'rest') break;
    const part = own[i]!;
    if (segment.kind === 'literal' ? part !== segment.value : part.length === 0) return undefined;
  }
  const pathParams: Array<[string, string]> = [];
  for (const variable of variables) {
    const end = segments[variable.end - 1]?.kind === 'rest' ? own.length : variable.end;
    if (end - variable.start === 1) {
      const decoded = decodeSegment(own[variable.start]!);
      if (decoded === undefined) return undefined;
      pathParams.push([variable.fieldPath, decoded]);
      continue;
    }
    const raw = own.slice(variable.start, end);
    const decoded = raw.map(decodeSegment);
    if (decoded.some((part) => part === undefined)) return undefined;
    pathParams.push([variable.fieldPath, decoded.join('/')]);
  }
  return { route, pathParams };
}

/**
 * Every HTTP binding found in the loaded descriptors, most specific first, so the first match wins: literal
 * segments over variables (`/ixo/entity/params` is Params, not Entity with id "params").
 */
export class RouteTable {
  readonly routes: readonly Route[];
  readonly prefix: string;
  /** The bindings of the descriptors that are not routes (read-only rule, bad templates…). */
  readonly skipped: readonly SkippedBinding[];
  /**
   * By a path's number of segments, the routes that can match it, in specificity order: only a template ending in
   * `**` spans a varying number of segments, so a request is tried against a handful of routes instead of all.
   */
  private readonly candidatesBySegments: ReadonlyArray<readonly Route[]>;
  /** The candidates of paths longer than every fixed-length template. */
  private readonly restRoutes: readonly Route[];

  private constructor(routes: Route[], prefix: string, skipped: SkippedBinding[]) {
    this.routes = routes.sort(compareSpecificity);
    this.prefix = prefix;
    this.skipped = skipped;
    const longest = Math.max(0, ...this.routes.map((route) => route.template.segments.length));
    this.candidatesBySegments = Array.from({ length: longest + 1 }, (_, count) =>
      this.routes.filter((route) =>
        endsWithRest(route)
          ? count >= route.template.segments.length - 1
          : count === route.template.segments.length,
      ),
    );
    this.restRoutes = this.routes.filter(endsWithRest);
  }

  static fromRoot(root: Root, services: readonly string[], prefix: string = ANNOTATION_PREFIX): RouteTable {
    return RouteTable.fromSources([{ root, services, source: 'compiled-in' }], prefix);
  }

  /**
   * One table from several sets of descriptors (the node's, and ours for the services it did not describe). A binding
   * that cannot be served is left out and listed in `skipped`: nothing in the descriptors makes this throw.
   */
  static fromSources(sets: readonly RouteSourceSet[], prefix: string = ANNOTATION_PREFIX): RouteTable {
    const routes: Route[] = [];
    const skipped: SkippedBinding[] = [];
    for (const { root, services, source } of sets) {
      for (const name of services) {
        const service: Service = root.lookupService(name);
        const serviceName = service.fullName.replace(/^\./, '');
        for (const method of service.methodsArray) {
          const fullMethod = `${serviceName}/${method.name}`;
          for (const rule of httpRules(method)) {
            const binding = verbAndPath(rule);
            if (!binding) continue;
            const [httpMethod, path] = binding;
            const skip = (reason: SkipReason, detail: string): void => {
              skipped.push({ fullMethod, binding: `${httpMethod} ${path}`, reason, detail });
            };
            if (method.requestStream || method.responseStream) {
              skip('unsupported', 'a streaming method');
              continue;
            }
            const problem = unservable(httpMethod, rule);
            if (problem) {
              skip(...problem);
              continue;
            }
            const pattern = mount(path, prefix);
            let template: PathTemplate;
            try {
              template = parsePathTemplate(pattern);
            } catch (error) {
              skip('invalid-template', error instanceof Error ? error.message : String(error));
              continue;
            }
            routes.push({
              service: serviceName,
              method: method.name,
              fullMethod,
              grpcPath: `/${serviceName}/${method.name}`,
              httpMethod,
              pattern,
              template,
              requestType: method.resolvedRequestType as Type,
              responseType: method.resolvedResponseType as Type,
              source,
            });
          }
        }
      }
    }
    return new RouteTable(routes, prefix, skipped);
  }

  /** All routes whose path matches, for any HTTP method (405 needs to know the path exists). */
  matchPath(path: string): RouteMatch[] {
    const parts = path.split('/').slice(1);
    const candidates = this.candidatesBySegments[parts.length] ?? this.restRoutes;
    const matches: RouteMatch[] = [];
    for (const route of candidates) {
      const match = matchSegments(route, parts);
      if (match) matches.push(match);
    }
    return matches;
  }
}
