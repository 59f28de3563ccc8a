import {
  ArrayNotEmpty,
  ArrayUnique,
  IsBoolean,
  IsDefined,
  IsIn,
  IsOptional,
  IsString,
  Matches,
  ValidateIf,
} from 'class-validator';
import { AsBoolean, BaseServiceConfig, IntegerVariable, ListVariable } from '@dmrv/config';

export const ACCESS_MODES = ['open', 'api-key'] as const;
export type AccessMode = (typeof ACCESS_MODES)[number];
export const LEGACY_ROUTE_MODES = ['404', 'serve'] as const;
export type LegacyRouteMode = (typeof LEGACY_ROUTE_MODES)[number];

// An API key entry is `<key>` (every route) or `<key>@<scope>+<scope>`; keys are URL-safe and long enough not to
// be guessed. The pattern is checked here so a malformed entry stops the service at start-up.
const API_KEY_ENTRY = /^[A-Za-z0-9._~-]{16,256}(@[A-Za-z0-9.*/_-]+(\+[A-Za-z0-9.*/_-]+)*)?$/;

export class ProtocolGatewayConfig extends BaseServiceConfig {
  // The base class's rule (an integer port, 0 for any free one) applies; only the default differs.
  override PORT = 3002;

  /** host:port of each chain node's gRPC query endpoint, comma-separated: requests fail over between them. */
  @IsDefined({
    message: 'is required: host:port of the chain node gRPC endpoint(s), e.g. 127.0.0.1:9090',
  })
  @ArrayNotEmpty({ message: 'is required: at least one host:port' })
  @ArrayUnique({ message: 'must not name a node twice' })
  @ListVariable(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, 'must be host:port, or several comma-separated')
  GRPC_UPSTREAM!: string[];

  /** With several nodes: how often each one's gRPC health is checked, so requests avoid a node that is down. */
  @IntegerVariable({ min: 100, max: 600_000 })
  UPSTREAM_HEALTH_INTERVAL_MS = 5_000;

  /**
   * With several nodes: how long a call may go unanswered before the same call also goes to the next node (the first
   * answer wins, within the one UPSTREAM_DEADLINE_MS). 0 turns it off: a silent node then holds its calls until the
   * deadline.
   */
  @IntegerVariable({ min: 0, max: 600_000 })
  UPSTREAM_HEDGE_MS = 1_000;

  /** Routes are served under /{PROTOCOL_PREFIX}/…; the protos' own `/ixo/` is replaced by it. */
  @IsString()
  @Matches(/^[A-Za-z0-9][A-Za-z0-9._~-]*(\/[A-Za-z0-9][A-Za-z0-9._~-]*)*$/, {
    message: 'must be one or more path segments without leading or trailing /',
  })
  PROTOCOL_PREFIX = 'ixo';

  /**
   * Further path prefixes of older releases, beyond the built-in ones of REFERENCE §3 (routes/legacy-routes.ts):
   * they answer 404 naming the current prefix instead of a bare 404.
   */
  @ListVariable(/^\/[^\s?#]*$/, 'each entry must be a path starting with /')
  LEGACY_PREFIXES: string[] = [];

  /** Paths of older releases (`/ixo/claim/{id}`, `/did/{did}` …): `404` naming the current route, or `serve` them as it. */
  @IsIn(LEGACY_ROUTE_MODES)
  LEGACY_ROUTES: LegacyRouteMode = '404';

  /** A query parameter that names no field: ignored (grpc-gateway's behaviour) unless this is true (400). */
  @AsBoolean()
  @IsBoolean()
  QUERY_STRICT = false;

  /** Deadline of every upstream call; past it the gateway answers 504. */
  @IntegerVariable({ min: 1, max: 600_000 })
  UPSTREAM_DEADLINE_MS = 10_000;

  @AsBoolean()
  @IsBoolean()
  UPSTREAM_TLS = false;

  /** PEM file of the CA that signs the upstream's certificate; the system roots when unset. */
  @IsOptional()
  @IsString()
  UPSTREAM_TLS_CA_FILE?: string;

  /** Name to verify in the upstream's certificate when it differs from the GRPC_UPSTREAM host. */
  @IsOptional()
  @IsString()
  UPSTREAM_TLS_SERVER_NAME?: string;

  /**
   * Interval of HTTP/2 keepalive pings on the channel. Cosmos nodes run grpc-go's default enforcement (at most one
   * ping per 5 minutes, none without calls); pinging more often gets the connection closed with too_many_pings.
   */
  @IntegerVariable({ min: 10_000 })
  UPSTREAM_KEEPALIVE_MS = 300_000;

  /** Largest upstream answer accepted. */
  @IntegerVariable({ min: 1024 })
  UPSTREAM_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

  /** Ask the node (gRPC server reflection) which services it serves, and answer 501 at once for the others. */
  @AsBoolean()
  @IsBoolean()
  REFLECTION_ENABLED = true;

  /** How often the reflection answer is refreshed; 0 asks only at start-up. */
  @IntegerVariable({ min: 0 })
  REFLECTION_REFRESH_MS = 60_000;

  /**
   * Most routes taken from the node's descriptors (a full Cosmos node serves a few hundred). A node advertising more
   * is refused whole: the routes in service stay, and the refusal is logged and counted. It bounds the route table,
   * `/` and the OpenAPI document against a node that advertises without end.
   */
  @IntegerVariable({ min: 1, max: 1_000_000 })
  REFLECTION_MAX_ROUTES = 2_000;

  /**
   * Most bytes read from the node's reflection answers in one refresh (file descriptors, duplicates included); past it
   * the answers are not read further, and the descriptors are refused as above.
   */
  @IntegerVariable({ min: 1024 })
  REFLECTION_MAX_BYTES = 16 * 1024 * 1024;

  /**
   * How long an answer at the latest height is kept and served again (identical requests within it cost no upstream
   * call); 0 keeps none. Answers at a pinned height never change and are kept regardless.
   */
  @IntegerVariable({ min: 0, max: 600_000 })
  CACHE_LATEST_TTL_MS = 1_000;

  /**
   * Bytes the kept answers may hold at most, keys, headers, bodies and the objects around them all counted (expired and
   * least recently used out first); 0 keeps nothing. The process's memory limit must leave room for it.
   */
  @IntegerVariable({ min: 0 })
  CACHE_MAX_BYTES = 64 * 1024 * 1024;

  /** Methods the operator turns off (501 without an upstream call): `ixo.claims.v1beta1.Query/ClaimList`, a service, or a module such as `claims`. */
  @ListVariable(
    /^[A-Za-z0-9_.]+(\/[A-Za-z0-9_]+)?$/,
    'each entry must be a module, service or service/Method',
  )
  DISABLED_METHODS: string[] = [];

  @IsIn(ACCESS_MODES)
  ACCESS_MODE: AccessMode = 'open';

  /** Request header carrying the API key; `Authorization: Bearer <key>` is accepted as well (see AccessPolicy). */
  @Matches(/^[a-z0-9-]+$/i, { message: 'must be an HTTP header name' })
  API_KEY_HEADER = 'x-api-key';

  /** `<key>` or `<key>@<scope>+<scope>`, comma-separated; scopes are modules, services or service/Method. */
  @ValidateIf((config: ProtocolGatewayConfig) => config.ACCESS_MODE === 'api-key')
  @ArrayNotEmpty({ message: 'is required when ACCESS_MODE=api-key' })
  @ListVariable(API_KEY_ENTRY, 'each entry must be <key of 16+ URL-safe characters>[@scope+scope]')
  API_KEYS: string[] = [];

  /** Origins allowed to call from a browser (`*` for any); empty turns CORS off. */
  @ListVariable(
    /^(\*|https?:\/\/[^\s/,]+)$/,
    'each entry must be * or an origin such as https://app.example.org',
  )
  CORS_ORIGINS: string[] = [];
}
