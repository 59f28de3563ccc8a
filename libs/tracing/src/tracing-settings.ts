/** The OpenTelemetry variables of `BaseServiceConfig` (libs/config), validated there. */
export interface TracingEnvironment {
  OTEL_SDK_DISABLED: boolean;
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_HEADERS?: string;
  OTEL_EXPORTER_OTLP_TRACES_HEADERS?: string;
  OTEL_SERVICE_NAME?: string;
  OTEL_RESOURCE_ATTRIBUTES?: string;
  OTEL_TRACES_SAMPLER: string;
  OTEL_TRACES_SAMPLER_ARG?: number;
}

export interface TracingSettings {
  /** Where spans are POSTed (OTLP/HTTP, JSON). */
  url: string;
  headers: Record<string, string>;
  resource: Record<string, string>;
  sampler: { parentBased: boolean; root: 'always_on' | 'always_off' | 'traceidratio'; ratio: number };
}

/** `k=v,k2=v2` with percent-encoded values, as the OpenTelemetry specification writes headers and attributes. */
export function parseKeyValues(text: string | undefined): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const item of (text ?? '').split(',')) {
    const equals = item.indexOf('=');
    if (equals <= 0) continue;
    const key = item.slice(0, equals).trim();
    const raw = item.slice(equals + 1).trim();
    let value: string;
    try {
      value = decodeURIComponent(raw);
    } catch {
      value = raw;
    }
    if (key !== '') pairs[key] = value;
  }
  return pairs;
}

function tracesUrl(env: TracingEnvironment): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!base) return undefined;
  return `${base}${base.endsWith('/') ? '' : '/'}v1/traces`;
}

/**
 * What tracing runs with, or undefined when it is off: no OTLP endpoint, or `OTEL_SDK_DISABLED=true`. The service
 * name is `OTEL_SERVICE_NAME`, else `service.name` from `OTEL_RESOURCE_ATTRIBUTES`, else the service's own.
 */
export function tracingSettings(service: string, env: TracingEnvironment): TracingSettings | undefined {
  const url = tracesUrl(env);
  if (env.OTEL_SDK_DISABLED || url === undefined) return undefined;
  const resource = parseKeyValues(env.OTEL_RESOURCE_ATTRIBUTES);
  resource['service.name'] = env.OTEL_SERVICE_NAME ?? resource['service.name'] ?? service;
  const sampler = env.OTEL_TRACES_SAMPLER;
  const parentBased = sampler.startsWith('parentbased_');
  const root = (
    parentBased ? sampler.slice('parentbased_'.length) : sampler
  ) as TracingSettings['sampler']['root'];
  return {
    url,
    headers: {
      ...parseKeyValues(env.OTEL_EXPORTER_OTLP_HEADERS),
      ...parseKeyValues(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS),
    },
    resource,
    sampler: { parentBased, root, ratio: env.OTEL_TRACES_SAMPLER_ARG ?? 1 },
  };
}

function isSet(env: NodeJS.ProcessEnv, name: string): boolean {
  return (env[name] ?? '') !== '' || (env[`${name}_FILE`] ?? '') !== '';
}

/**
 * Whether the raw environment asks for tracing, read before the configuration is: instrumentations that patch a
 * driver are registered before the driver is first required. The rule of `tracingSettings` (an OTLP endpoint, given
 * directly or through its `_FILE` twin, and OTEL_SDK_DISABLED not `true`/`1`); a value the configuration then refuses
 * stops the service anyway.
 */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  const disabled = (env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase();
  if (disabled === 'true' || disabled === '1') return false;
  return isSet(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') || isSet(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
}
