import { ArrayMaxSize, IsBoolean, IsIn, IsString, Matches } from 'class-validator';
import { AsBoolean, DatabaseConfig, IntegerVariable, ListVariable, OptionalMatching } from '@dmrv/config';
import { RetiredKeysVariable, SigningKeyVariable } from './signing-variables';

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;

export class RegistryConfig extends DatabaseConfig {
  // The base class's rule (an integer port, 0 for any free one) applies; only the default differs.
  override PORT = 3001;

  /**
   * Read replicas (streaming standbys of DATABASE_URL, or PgBouncer pools in front of them), comma-separated. The
   * service spreads its reads over them and keeps on DATABASE_URL what must see every commit at once (reads that
   * fill the in-memory caches) and the notification probe; a replica that fails is skipped until it answers again.
   */
  @ArrayMaxSize(16)
  @ListVariable(POSTGRES_URL, 'must be postgres:// URLs separated by commas')
  DATABASE_REPLICA_URLS: string[] = [];

  /**
   * Where the change listener opens its LISTEN connection when DATABASE_URL goes through a transaction-mode pooler
   * (PgBouncer): a direct connection to the primary. Default: DATABASE_URL.
   */
  @OptionalMatching(POSTGRES_URL, 'must be a postgres:// URL')
  DATABASE_LISTEN_URL?: string;

  /** How long opening a database connection, or waiting for a free one in the pool, may take before a 503. */
  @IntegerVariable({ min: 100, max: 120_000 })
  DATABASE_CONNECT_TIMEOUT_MS = 5000;

  /**
   * The longest a query may run: PostgreSQL cancels it then (`statement_timeout`), and the service stops waiting for
   * an answer one second later (a connection that went silent) and drops it. Either way the request gets a 503.
   */
  @IntegerVariable({ min: 100, max: 600_000 })
  DATABASE_QUERY_TIMEOUT_MS = 5000;

  /** TCP keepalive on database connections: idle time before the first probe. */
  @IntegerVariable({ min: 1000, max: 7_200_000 })
  DATABASE_KEEPALIVE_IDLE_MS = 10_000;

  /** Put before `/v1`, e.g. `/emerging-platform` as upstream had it. Empty: the API lives at `/v1`. */
  @IsString()
  @Matches(/^(\/[A-Za-z0-9._~-]+)*$/, {
    message: 'must be empty or a path such as /emerging-platform (no trailing slash)',
  })
  API_BASE_PATH_PREFIX = '';

  /** Requests per minute and API client (per address on the public routes); 0 turns limiting off. */
  @IntegerVariable({ min: 0 })
  RATE_LIMIT_PER_MINUTE = 1200;

  /**
   * Failed authentications (wrong, unknown or revoked credentials) per minute from one address with one client id
   * before that pair gets 429 without hashing; 0 turns this limit off.
   */
  @IntegerVariable({ min: 0 })
  AUTH_FAILURES_PER_MINUTE = 30;

  /** Failed authentications per minute from one address over all client ids before it gets 429; 0 turns it off. */
  @IntegerVariable({ min: 0 })
  AUTH_ADDRESS_FAILURES_PER_MINUTE = 120;

  /** Secret hashes (scrypt, ~60 ms of a libuv thread each) run at once; libuv has four threads. */
  @IntegerVariable({ min: 1, max: 16 })
  AUTH_HASH_CONCURRENCY = 2;

  /** Authentications allowed to wait for a hash; beyond that a request is answered 503 with Retry-After at once. */
  @IntegerVariable({ min: 0, max: 10_000 })
  AUTH_HASH_QUEUE = 16;

  /** `Cache-Control: private, max-age=N` on every 200. */
  @IntegerVariable({ min: 0, max: 86400 })
  CACHE_MAX_AGE_SECONDS = 30;

  /**
   * How long an aggregate answer may be served from memory. A rollup refresh through our code (or a change to
   * `projects`) drops the answers at once while the change listener is live; this bounds the staleness when it is not
   * (refresh by hand, listener down, embedded PGlite). 0 turns the aggregate cache off.
   */
  @IntegerVariable({ min: 0, max: 86400 })
  AGGREGATE_CACHE_TTL_SECONDS = 60;

  /** Most aggregate answers kept (oldest dropped first). */
  @IntegerVariable({ min: 1, max: 1_000_000 })
  AGGREGATE_CACHE_MAX_ENTRIES = 2000;

  /**
   * Most record answers kept in memory (the most recent record of a selection, the total of a collection's filters;
   * each well under 1 KB), oldest dropped first; served only while the change listener is live. 0 turns it off.
   */
  @IntegerVariable({ min: 0, max: 1_000_000 })
  RECORD_CACHE_MAX_ENTRIES = 10_000;

  /**
   * What a selection that names nothing answers (an unknown project, household or region, no matching record): `404`
   * with `{ message }`, or `zero`, a 200 with the zero value of the operation's 200 shape, for clients generated from
   * the original contract (which declares only 200, 400 and 401) that cannot take a 404.
   */
  @IsIn(['404', 'zero'], { message: 'must be 404 or zero' })
  EMPTY_AS: '404' | 'zero' = '404';

  /**
   * The Ed25519 private key (PEM, PKCS#8) that signs every answer (RFC 9421) and every export manifest; a secret: set
   * it through SIGNING_KEY_FILE. Required in production unless SIGNING_DISABLED; elsewhere, unset means unsigned.
   */
  @SigningKeyVariable()
  SIGNING_KEY?: string;

  /** `true`: serve unsigned answers, in production too. */
  @AsBoolean()
  @IsBoolean()
  SIGNING_DISABLED = false;

  /**
   * Public keys that signed before SIGNING_KEY, as a JWKS whose every key has `exp`, the time it stopped signing
   * (`node dist/cli.js signing-key retire` writes it). Served with the current key, so archives signed before a
   * rotation still verify.
   */
  @RetiredKeysVariable()
  SIGNING_RETIRED_KEYS?: string;

  /**
   * Scheme and authority the signatures state as the answers' target URI (`https://registry.example.org`), for a
   * service behind a proxy that rewrites them; unset: each request's own (X-Forwarded-Proto and -Host from trusted
   * proxies, else http and Host).
   */
  @OptionalMatching(
    /^https?:\/\/[^\s/?#]+$/,
    'must be a scheme and authority, such as https://registry.example.org',
  )
  SIGNING_ORIGIN?: string;
}

export function apiBasePath(config: RegistryConfig): string {
  return `${config.API_BASE_PATH_PREFIX}/v1`;
}

/** How long the service lets a database connection take to open, a query to run, and a connection sit idle unprobed. */
export interface ConnectionLimits {
  connectTimeoutMs: number;
  queryTimeoutMs: number;
  keepAliveIdleMs: number;
}

/** The service's database connection limits (the CLI's migrations and seeding run without them). */
export function connectionLimits(config: RegistryConfig): ConnectionLimits {
  return {
    connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS,
    queryTimeoutMs: config.DATABASE_QUERY_TIMEOUT_MS,
    keepAliveIdleMs: config.DATABASE_KEEPALIVE_IDLE_MS,
  };
}
