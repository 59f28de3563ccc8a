import {
  IsBoolean,
  IsIn,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  ValidateBy,
  ValidationOptions,
} from 'class-validator';
import { AsBoolean, AsList, AsNumber, IntegerVariable, OptionalMatching } from './transforms';

/** Fails when the value equals the value of `other` on the same object; 0 (any free port) never collides. */
function DiffersFrom(other: string, validationOptions?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'differsFrom',
      constraints: [other],
      validator: {
        validate: (value: unknown, args) =>
          value === 0 || value !== (args?.object as Record<string, unknown>)[other],
        defaultMessage: () => `must differ from ${other}`,
      },
    },
    validationOptions,
  );
}

/** `key=value` pairs, comma-separated, as the OpenTelemetry specification writes headers and resource attributes. */
const KEY_VALUE_LIST = /^\s*[^=,\s]+\s*=[^,]*(,\s*[^=,\s]+\s*=[^,]*)*$/;
const HTTP_URL = /^https?:\/\/[^\s/?#]+[^\s]*$/;

export const OTEL_TRACES_SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;
export type OtelTracesSampler = (typeof OTEL_TRACES_SAMPLERS)[number];

// Spans go out as OTLP over HTTP with JSON bodies. Every OTLP/HTTP receiver takes both encodings on the same URL, so
// an environment written for http/protobuf works unchanged; grpc is a different port and protocol, and is refused.
const OTLP_PROTOCOLS = ['http/json', 'http/protobuf'] as const;

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Variables every service reads. Apps extend this class with their own. */
export class BaseServiceConfig {
  /** Name of the running environment, reported by health endpoints (e.g. development, staging, production). */
  @IsString()
  @MinLength(1)
  NODE_ENV = 'development';

  /** 0 binds any free port (logged, and announced to a parent that started the service with an IPC channel). */
  @IntegerVariable({ min: 0, max: 65535 })
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

  /**
   * Serve `GET /metrics` (Prometheus text) on this separate port, without authentication; unset: no listener; 0: any
   * free port (the bound one is logged), which is what tests use so that no two runs race for a port.
   */
  @IsOptional()
  @IntegerVariable({ min: 0, max: 65535 })
  @DiffersFrom('PORT')
  METRICS_PORT?: number;

  /** Serve `GET /metrics` on the main port too, to `Authorization: Bearer <this token>` only. */
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  METRICS_TOKEN?: string;

  // OpenTelemetry tracing, by the specification's variable names. Off unless an OTLP endpoint is set.

  /** Base URL of the OTLP/HTTP receiver; spans go to `<url>/v1/traces`. */
  @OptionalMatching(HTTP_URL, 'must be an http:// or https:// URL')
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;

  /** Full URL for spans, used as it is (wins over OTEL_EXPORTER_OTLP_ENDPOINT). */
  @OptionalMatching(HTTP_URL, 'must be an http:// or https:// URL')
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;

  /** Headers sent with every export, `key=value,…` (e.g. a receiver's API key: set it through `_FILE`). */
  @OptionalMatching(KEY_VALUE_LIST, 'must be key=value pairs separated by commas')
  OTEL_EXPORTER_OTLP_HEADERS?: string;

  @OptionalMatching(KEY_VALUE_LIST, 'must be key=value pairs separated by commas')
  OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS, {
    message: 'must be http/json or http/protobuf (both are sent as OTLP/HTTP JSON); grpc is not supported',
  })
  OTEL_EXPORTER_OTLP_PROTOCOL?: string;

  @IsOptional()
  @IsIn(OTLP_PROTOCOLS, {
    message: 'must be http/json or http/protobuf (both are sent as OTLP/HTTP JSON); grpc is not supported',
  })
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?: string;

  /** `service.name` of the spans; default: the service's own name. */
  @IsOptional()
  @IsString()
  @MinLength(1)
  OTEL_SERVICE_NAME?: string;

  /** More resource attributes, `key=value,…` (e.g. `deployment.environment.name=production`). */
  @OptionalMatching(KEY_VALUE_LIST, 'must be key=value pairs separated by commas')
  OTEL_RESOURCE_ATTRIBUTES?: string;

  @IsIn(OTEL_TRACES_SAMPLERS)
  OTEL_TRACES_SAMPLER: OtelTracesSampler = 'parentbased_always_on';

  /** The ratio of the `traceidratio` samplers, 0 … 1. */
  @IsOptional()
  @AsNumber()
  @IsNumber()
  @Min(0)
  @Max(1)
  OTEL_TRACES_SAMPLER_ARG?: number;

  /** `true` turns tracing off whatever else is set. */
  @AsBoolean()
  @IsBoolean()
  OTEL_SDK_DISABLED = false;
}

/** What the HTTP layer should trust: nothing, a hop count, or a list of proxy addresses. */
export function trustedProxies(config: BaseServiceConfig): false | number | string[] {
  if (!config.TRUST_PROXY_ENABLED) return false;
  return config.TRUSTED_PROXY_CIDRS.length > 0 ? config.TRUSTED_PROXY_CIDRS : config.TRUST_PROXY_HOPS;
}
