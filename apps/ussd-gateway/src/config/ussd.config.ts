import { availableParallelism } from 'node:os';
import {
  IsBoolean,
  IsDefined,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateBy,
  ValidateIf,
} from 'class-validator';
import {
  AsBoolean,
  DatabaseConfig,
  IntegerVariable,
  ListVariable,
  OptionalMatching,
  RemovedVariables,
} from '@dmrv/config';

const KEY_PATTERN = /^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/;
const REDIS_URL_PATTERN = /^rediss?:\/\/\S+$/;
const ADDRESS_OR_CIDR = /^[0-9a-fA-F:.]+(\/\d{1,3})?$/;
const REDIS_TOPOLOGIES = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'] as const;

export const EVENTS_SENDER_REQUIRED =
  "is required under NODE_ENV=production unless EVENTS_ALLOWED_CIDRS is set: without either, every session-end notification (POST /api/ussd/events) is refused. Set EVENTS_TOKEN (the secret of the aggregator's callback URL) or EVENTS_ALLOWED_CIDRS (its addresses), or EVENTS_ENABLED=false to turn the endpoint off";

/** Production with the events endpoint on and nobody allowed to post to it. */
function eventsSenderUnset(config: UssdConfig): boolean {
  return (
    config.NODE_ENV === 'production' && config.EVENTS_ENABLED && config.EVENTS_ALLOWED_CIDRS.length === 0
  );
}

/** Redis is one node, a cluster or a Sentinel-watched master: naming two is a mistake, not a choice to make for the operator. */
function OneRedisTopology(): PropertyDecorator {
  return ValidateBy({
    name: 'oneRedisTopology',
    validator: {
      validate: (_value: unknown, args) => {
        const config = args?.object as Record<string, unknown>;
        const set = REDIS_TOPOLOGIES.filter((name) => {
          const value = config[name];
          return Array.isArray(value) ? value.length > 0 : value !== undefined && value !== '';
        });
        return set.length <= 1;
      },
      defaultMessage: () => `set only one of ${REDIS_TOPOLOGIES.join(', ')}`,
    },
  });
}

@RemovedVariables({
  PIN_HASH_NICE:
    "was removed: PIN hashes run on libuv's thread pool at the process's priority. Unset it; to leave the event loop more CPU, lower PIN_HASH_CONCURRENCY",
  PIN_HASH_CONCURRENCY_IDLE:
    "was removed: PIN_HASH_CONCURRENCY is the one limit on PIN hashes at once, whatever the event loop's load. Unset it and set PIN_HASH_CONCURRENCY to the number of hashes to run at once",
})
export class UssdConfig extends DatabaseConfig {
  /** Without it, sessions and rate-limit counters live in this process only (single-instance local use). */
  @OptionalMatching(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')
  @OneRedisTopology()
  REDIS_URL?: string;

  /**
   * Redis Cluster instead of one node: some or all of its nodes as redis:// or rediss:// URLs (user, password and TLS
   * of the first apply to all); the client finds the others and follows failovers.
   */
  @ListVariable(REDIS_URL_PATTERN, 'must be a comma-separated list of redis:// or rediss:// URLs')
  @OneRedisTopology()
  REDIS_CLUSTER_NODES: string[] = [];

  /** Redis through Sentinel: the sentinels as host:port, comma-separated (with REDIS_SENTINEL_NAME). */
  @ListVariable(/^[A-Za-z0-9.[\]:-]+:\d{1,5}$/, 'must be a comma-separated list of host:port')
  @OneRedisTopology()
  REDIS_SENTINELS: string[] = [];

  /** The master name the sentinels monitor (`sentinel monitor <name> …`). */
  @ValidateIf(
    (config: UssdConfig) => config.REDIS_SENTINELS.length > 0 || config.REDIS_SENTINEL_NAME !== undefined,
  )
  @IsDefined({ message: 'is required with REDIS_SENTINELS: the master name the sentinels monitor' })
  @IsString()
  @Matches(/^[A-Za-z0-9._-]{1,64}$/, { message: 'must be 1-64 letters, digits, . _ or -' })
  @ValidateBy({
    name: 'onlyWithSentinels',
    validator: {
      validate: (_value, args) => (args?.object as UssdConfig).REDIS_SENTINELS.length > 0,
      defaultMessage: () => 'is used only with REDIS_SENTINELS',
    },
  })
  REDIS_SENTINEL_NAME?: string;

  /** Password of the master and replicas found through Sentinel (with REDIS_URL or a cluster, it is in the URL). */
  @IsOptional()
  @IsString()
  REDIS_PASSWORD?: string;

  /** Password of the sentinels themselves, if they require one. */
  @IsOptional()
  @IsString()
  REDIS_SENTINEL_PASSWORD?: string;

  /** Every key this service writes starts with it, so several deployments (or test runs) can share one Redis. */
  @IsString()
  @MaxLength(64)
  @Matches(/^[A-Za-z0-9:_.-]*$/, { message: 'may contain only letters, digits and : _ . -' })
  REDIS_KEY_PREFIX = 'ussd:';

  /** AES-256 key for PINs at rest: 32 bytes as 64 hex characters or base64. */
  @IsDefined({ message: 'is required: a 32-byte key as 64 hex characters or base64 (openssl rand -hex 32)' })
  @IsString()
  @Matches(KEY_PATTERN, { message: 'must be 32 bytes as 64 hex characters or base64' })
  PIN_ENCRYPTION_KEY!: string;

  /** Stored next to every encrypted PIN hash, so a rotated-out key can still be found by its id. */
  @IsString()
  @Matches(/^[A-Za-z0-9_-]{1,16}$/, { message: 'must be 1-16 letters, digits, _ or -' })
  PIN_ENCRYPTION_KEY_ID = 'k1';

  /** Keys retired by a rotation, still accepted for decryption: `id:key,id:key` (key as for PIN_ENCRYPTION_KEY). */
  @ListVariable(
    /^[A-Za-z0-9_-]{1,16}:([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/,
    'must be a comma-separated list of id:key (key as 64 hex characters or base64)',
  )
  PIN_PREVIOUS_KEYS: string[] = [];

  /** Wrong PINs in a row (across sessions and redials) before the account locks. */
  @IntegerVariable({ min: 1, max: 20 })
  PIN_MAX_ATTEMPTS = 3;

  @IntegerVariable({ min: 1, max: 7 * 24 * 3600 })
  PIN_LOCKOUT_SECONDS = 900;

  /**
   * PIN hashes (scrypt, on libuv's thread pool) running at once: by default one per core (`os.availableParallelism()`).
   * Every hash past it waits in PIN_HASH_QUEUE, so a burst of PIN hops cannot take the CPU the other hops need.
   */
  @IntegerVariable({ min: 1, max: 64 })
  PIN_HASH_CONCURRENCY = availableParallelism();

  /** PIN hashes admitted to wait for a slot; one more, or one whose expected wait passes its share of HOP_TIMEOUT_MS, is answered "busy". */
  @IntegerVariable({ min: 0, max: 10_000 })
  PIN_HASH_QUEUE = 64;

  /** scrypt cost (log2 N) of PINs written from now on; stored hashes keep the cost they record. 14 = 16 MiB, ~50 ms. */
  @IntegerVariable({ min: 10, max: 17 })
  PIN_HASH_COST_LOG2 = 14;

  /** Inactivity after which a session is forgotten; refreshed on every hop (the aggregator's own limit is ~180 s). */
  @IntegerVariable({ min: 10, max: 3600 })
  SESSION_TTL_SECONDS = 180;

  /** Whole-hop budget: the aggregator waits ~15 s, so a stuck dependency must answer "unavailable" well before. */
  @IntegerVariable({ min: 100, max: 14_000 })
  HOP_TIMEOUT_MS = 5000;

  /** Requests per window per client IP, on every endpoint. */
  @IntegerVariable({ min: 1 })
  RATE_LIMIT_PER_IP = 100;

  @IntegerVariable({ min: 1, max: 3600 })
  RATE_LIMIT_WINDOW_SECONDS = 60;

  /** Aggregator addresses (CIDR or single IP) exempt from the per-IP limit; their requests are limited per phone. */
  @ListVariable(ADDRESS_OR_CIDR, 'must be a comma-separated list of IPs or CIDRs')
  RATE_LIMIT_EXEMPT_CIDRS: string[] = [];

  /** Session requests per window per phone number, for traffic from exempt addresses. */
  @IntegerVariable({ min: 1 })
  RATE_LIMIT_PER_PHONE = 30;

  /** Requests per window per session id, whoever sends them (REFERENCE §2: besides the per-IP and per-phone limits). */
  @IntegerVariable({ min: 1 })
  RATE_LIMIT_PER_SESSION = 30;

  /**
   * Whether `POST /api/ussd/events` (the aggregator's session-end notifications) exists at all: `false` answers it 404,
   * for a deployment whose aggregator sends none. Under NODE_ENV=production an enabled endpoint needs EVENTS_TOKEN or
   * EVENTS_ALLOWED_CIDRS, or the service does not start.
   */
  @AsBoolean()
  @IsBoolean()
  EVENTS_ENABLED = true;

  /**
   * Who may post session-end notifications (`POST /api/ussd/events`): the aggregator's addresses, as the client
   * address resolves under the trust-proxy settings. With neither this nor EVENTS_TOKEN set, only loopback may post
   * outside production (`npm start`); production refuses to start (see EVENTS_TOKEN).
   */
  @ListVariable(ADDRESS_OR_CIDR, 'must be a comma-separated list of IPs or CIDRs')
  EVENTS_ALLOWED_CIDRS: string[] = [];

  /**
   * A shared secret the aggregator presents with each notification: in the callback URL as `?token=…` (Africa's
   * Talking sends to the URL it is given and sets no header of ours) or as the `x-events-token` header. Required
   * under NODE_ENV=production unless EVENTS_ALLOWED_CIDRS is set or EVENTS_ENABLED=false: an endpoint nobody may post
   * to answers every genuine notification 403, which is a broken feature, not a safe default.
   */
  @ValidateIf((config: UssdConfig) => config.EVENTS_TOKEN !== undefined || eventsSenderUnset(config))
  @IsDefined({ message: EVENTS_SENDER_REQUIRED })
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  @Matches(/^[A-Za-z0-9._~-]+$/, { message: 'must be URL-safe: letters, digits, . _ ~ or -' })
  EVENTS_TOKEN?: string;

  /** Enables the debug and session-list endpoints (header `x-operator-token`); without it they answer 404. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  OPERATOR_TOKEN?: string;

  /** Serves GET /simulator, a handset in the browser for trying every menu; `npm start` turns it on. */
  @AsBoolean()
  @IsBoolean()
  SIMULATOR_ENABLED = false;

  /**
   * Language of a phone that never chose one, by country calling code: `255:sw,243:fr`. Checked against the content
   * files at start-up. Kenya (254) is left to DEFAULT_LANGUAGE: English and Swahili are both official there.
   */
  @ListVariable(
    /^\+?\d{1,4}:[a-z]{2,3}(-[A-Za-z0-9]+)*$/,
    'must be a comma-separated list of <country code>:<language>, e.g. 255:sw',
  )
  LANGUAGE_BY_COUNTRY_CODE: string[] = [
    '255:sw',
    '256:en',
    '250:en',
    '243:fr',
    '242:fr',
    '225:fr',
    '221:fr',
    '223:fr',
    '226:fr',
    '227:fr',
    '228:fr',
    '229:fr',
    '224:fr',
    '237:fr',
    '241:fr',
    '235:fr',
    '236:fr',
    '257:fr',
    '261:fr',
  ];

  /** Language of a phone whose country code is not in LANGUAGE_BY_COUNTRY_CODE. */
  @IsString()
  @Matches(/^[a-z]{2,3}(-[A-Za-z0-9]+)*$/, { message: 'must be a language code such as en' })
  DEFAULT_LANGUAGE = 'en';

  /**
   * JSON file with Know More texts replacing the content files' own: `{about, pricing, delivery}` (English) or
   * `{"fr": {about, …}, …}` per language; the content files' texts when unset.
   */
  @IsOptional()
  @IsString()
  CONTENT_FILE?: string;
}
