import { parseKeyValues, TracingEnvironment, tracingRequested, tracingSettings } from './tracing-settings';

const OFF: TracingEnvironment = { OTEL_SDK_DISABLED: false, OTEL_TRACES_SAMPLER: 'parentbased_always_on' };

describe('tracingSettings', () => {
  it('is off without an OTLP endpoint', () => {
    expect(tracingSettings('svc', OFF)).toBeUndefined();
  });

  it('is off when OTEL_SDK_DISABLED is true, whatever else is set', () => {
    expect(
      tracingSettings('svc', {
        ...OFF,
        OTEL_SDK_DISABLED: true,
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      }),
    ).toBeUndefined();
  });

  it.each([
    ['http://collector:4318', 'http://collector:4318/v1/traces'],
    ['http://collector:4318/', 'http://collector:4318/v1/traces'],
    ['https://otlp.example/api/otlp', 'https://otlp.example/api/otlp/v1/traces'],
  ])('sends spans to <OTEL_EXPORTER_OTLP_ENDPOINT>/v1/traces: %s', (endpoint, url) => {
    expect(tracingSettings('svc', { ...OFF, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })?.url).toBe(url);
  });

  it('uses OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, before the base endpoint', () => {
    const settings = tracingSettings('svc', {
      ...OFF,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://traces:9999/custom',
    });
    expect(settings?.url).toBe('http://traces:9999/custom');
  });

  it('merges the headers, the traces-specific ones winning, with percent-encoded values decoded', () => {
    const settings = tracingSettings('svc', {
      ...OFF,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=general,tenant=acme',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'api-key=Bearer%20abc%3D',
    });
    expect(settings?.headers).toEqual({ 'api-key': 'Bearer abc=', tenant: 'acme' });
  });

  it('names the service: OTEL_SERVICE_NAME, else service.name of OTEL_RESOURCE_ATTRIBUTES, else its own name', () => {
    const base = { ...OFF, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracingSettings('svc', base)?.resource).toEqual({ 'service.name': 'svc' });
    const attributes = 'service.name=from-attributes,deployment.environment.name=prod';
    expect(tracingSettings('svc', { ...base, OTEL_RESOURCE_ATTRIBUTES: attributes })?.resource).toEqual({
      'service.name': 'from-attributes',
      'deployment.environment.name': 'prod',
    });
    expect(
      tracingSettings('svc', { ...base, OTEL_RESOURCE_ATTRIBUTES: attributes, OTEL_SERVICE_NAME: 'named' })
        ?.resource['service.name'],
    ).toBe('named');
  });

  it.each([
    ['parentbased_always_on', undefined, { parentBased: true, root: 'always_on', ratio: 1 }],
    ['always_off', undefined, { parentBased: false, root: 'always_off', ratio: 1 }],
    ['parentbased_traceidratio', 0.25, { parentBased: true, root: 'traceidratio', ratio: 0.25 }],
    ['traceidratio', 0, { parentBased: false, root: 'traceidratio', ratio: 0 }],
  ])('reads the sampler %s (arg %s)', (sampler, arg, expected) => {
    const settings = tracingSettings('svc', {
      ...OFF,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318',
      OTEL_TRACES_SAMPLER: sampler,
      OTEL_TRACES_SAMPLER_ARG: arg,
    });
    expect(settings?.sampler).toEqual(expected);
  });
});

describe('parseKeyValues', () => {
  it('trims, skips items without a key, and keeps an undecodable value as written', () => {
    expect(parseKeyValues(' a = 1 , =x, b, c=%E0%A4%A, d=e=f')).toEqual({ a: '1', c: '%E0%A4%A', d: 'e=f' });
  });
});

describe('tracingRequested (the raw environment, before the configuration is read)', () => {
  it.each<[NodeJS.ProcessEnv, boolean]>([
    [{}, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT_FILE: '/run/secrets/otlp' }, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'TRUE' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: '1' }, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'false' }, true],
  ])('%j → %s', (env, requested) => {
    expect(tracingRequested(env)).toBe(requested);
  });
});
