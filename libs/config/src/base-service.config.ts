import { IsBoolean, IsIn, IsString, MinLength } from 'class-validator';
import { AsBoolean, AsList, IntegerVariable } from './transforms';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Variables every service reads. Apps extend this class with their own. */
export class BaseServiceConfig {
  /** Name of the running environment, reported by health endpoints (e.g. development, staging, production). */
  @IsString()
  @MinLength(1)
  NODE_ENV = 'development';

  @IntegerVariable({ min: 1, max: 65535 })
  PORT = 3000;

  @IsString()
  HOST = '0.0.0.0';

  @IsIn(LOG_LEVELS)
  LOG_LEVEL: LogLevel = 'info';

  /** Human-readable logs for a terminal; JSON lines otherwise. */
  @AsBoolean()
  @IsBoolean()
  LOG_PRETTY = false;

  /** Set when a reverse proxy sits in front: the client IP is then taken from X-Forwarded-For. */
  @AsBoolean()
  @IsBoolean()
  TRUST_PROXY_ENABLED = false;

  /**
   * With TRUST_PROXY_ENABLED: how many proxies in front of us append to X-Forwarded-For. The client address is the
   * entry that many hops from the right; entries further left are whatever the client sent and are never trusted.
   */
  @IntegerVariable({ min: 1, max: 10 })
  TRUST_PROXY_HOPS = 1;

  /** With TRUST_PROXY_ENABLED: trust exactly these proxy addresses/CIDRs instead of a hop count. */
  @AsList()
  @IsString({ each: true })
  TRUSTED_PROXY_CIDRS: string[] = [];

  /** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
  @IntegerVariable({ min: 0 })
  SHUTDOWN_GRACE_MS = 10_000;
}

/** What the HTTP layer should trust: nothing, a hop count, or a list of proxy addresses. */
export function trustedProxies(config: BaseServiceConfig): false | number | string[] {
  if (!config.TRUST_PROXY_ENABLED) return false;
  return config.TRUSTED_PROXY_CIDRS.length > 0 ? config.TRUSTED_PROXY_CIDRS : config.TRUST_PROXY_HOPS;
}
