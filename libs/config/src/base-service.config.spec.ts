import { BaseServiceConfig } from './base-service.config';
import { ConfigValidationError, loadConfig } from './load-config';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig('svc', BaseServiceConfig, env);
  } catch (error) {
    if (error instanceof ConfigValidationError)
      return error.problems.map((p) => `${p.variable}: ${p.problem}`);
    throw error;
  }
  return [];
}

describe('BaseServiceConfig: metrics and tracing variables', () => {
  it('leaves metrics and tracing off by default', () => {
    const config = loadConfig('svc', BaseServiceConfig, {});
    expect(config.METRICS_PORT).toBeUndefined();
    expect(config.METRICS_TOKEN).toBeUndefined();
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(config.OTEL_TRACES_SAMPLER).toBe('parentbased_always_on');
    expect(config.OTEL_SDK_DISABLED).toBe(false);
  });

  it('reads a metrics port, a token and the OpenTelemetry variables', () => {
    const config = loadConfig('svc', BaseServiceConfig, {
      METRICS_PORT: '9464',
      METRICS_TOKEN: 'sixteen-chars-ok',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=abc,tenant=acme',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: '0.1',
      OTEL_SDK_DISABLED: 'true',
    });
    expect(config).toMatchObject({
      METRICS_PORT: 9464,
      METRICS_TOKEN: 'sixteen-chars-ok',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_TRACES_SAMPLER_ARG: 0.1,
      OTEL_SDK_DISABLED: true,
    });
  });

  it('takes port 0 for both listeners (each binds any free port, so they cannot collide)', () => {
    expect(problemsOf({ PORT: '0', METRICS_PORT: '0' })).toEqual([]);
    expect(loadConfig('svc', BaseServiceConfig, { PORT: '0', METRICS_PORT: '0' })).toMatchObject({
      PORT: 0,
      METRICS_PORT: 0,
    });
  });

  it.each([
    [{ METRICS_PORT: '3000' }, 'METRICS_PORT: must differ from PORT'],
    [{ PORT: '-1' }, 'PORT: PORT must not be less than 0'],
    [{ METRICS_PORT: '70000' }, 'METRICS_PORT: METRICS_PORT must not be greater than 65535'],
    [
      { METRICS_PORT: 'metrics' },
      'METRICS_PORT: METRICS_PORT must be an integer number; METRICS_PORT must not be less than 0; METRICS_PORT must not be greater than 65535',
    ],
    [{ METRICS_TOKEN: 'too-short' }, 'METRICS_TOKEN: must be at least 16 characters'],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' },
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http:// or https:// URL',
    ],
    [
      { OTEL_EXPORTER_OTLP_HEADERS: 'no-equals-sign' },
      'OTEL_EXPORTER_OTLP_HEADERS: must be key=value pairs separated by commas',
    ],
    [
      { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
      'OTEL_EXPORTER_OTLP_PROTOCOL: must be http/json or http/protobuf (both are sent as OTLP/HTTP JSON); grpc is not supported',
    ],
    [
      { OTEL_TRACES_SAMPLER_ARG: '1.5' },
      'OTEL_TRACES_SAMPLER_ARG: OTEL_TRACES_SAMPLER_ARG must not be greater than 1',
    ],
  ])('refuses %j', (env, problem) => {
    expect(problemsOf(env)).toEqual([problem]);
  });

  it('never prints the metrics token it refused', () => {
    expect(problemsOf({ METRICS_TOKEN: 'secret-1' }).join('\n')).not.toContain('secret-1');
  });
});
