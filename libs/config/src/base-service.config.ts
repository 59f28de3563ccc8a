import { IsBoolean, IsIn, IsInt, IsString, Max, Min, MinLength } from 'class-validator';
import { AsBoolean, AsInteger } from './transforms';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Variables every service reads. Apps extend this class with their own. */
export class BaseServiceConfig {
  /** Name of the running environment, reported by health endpoints (e.g. development, staging, production). */
  @IsString()
  @MinLength(1)
  NODE_ENV = 'development';

  @AsInteger()
  @IsInt()
  @Min(1)
  @Max(65535)
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

  /** How long in-flight requests may take to finish after SIGTERM before the process exits anyway. */
  @AsInteger()
  @IsInt()
  @Min(0)
  SHUTDOWN_GRACE_MS = 10_000;
}
