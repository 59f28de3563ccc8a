import { Controller, DynamicModule, Get, Param, Post } from '@nestjs/common';
import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { LoggingModule } from '@dmrv/logging';
import { MetricsExposure, MetricsModule } from '@dmrv/metrics';
import { parseExposition, scrape } from '@dmrv/testing';
import { createHttpApp } from './create-http-app';

const TOKEN = 'metrics-token-for-tests-0001';
const DURATION = 'dmrv_http_request_duration_seconds_count';

@Controller()
class ItemsController {
  @Get('items/:id')
  item(@Param('id') id: string): { id: string } {
    return { id };
  }

  @Post('items')
  create(): { created: true } {
    return { created: true };
  }
}

interface Booted {
  app: NestFastifyApplication;
  /** Access lines written so far (requests the app logged). */
  accessPaths: () => string[];
  close(): Promise<void>;
}

async function boot(exposure: Omit<MetricsExposure, 'HOST'>): Promise<Booted> {
  const lines: Array<Record<string, unknown>> = [];
  const destination = {
    write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
  };
  const module: DynamicModule = {
    module: class SampleAppModule {},
    imports: [
      LoggingModule.forRoot({ service: 'sample', level: 'info', pretty: false, destination }),
      MetricsModule.forRoot({ service: 'sample', config: { HOST: '127.0.0.1', ...exposure } }),
    ],
    controllers: [ItemsController],
  };
  const app = await createHttpApp(module, { trustProxy: false });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return {
    app,
    accessPaths: () =>
      lines
        .filter((line) => line.msg === 'request completed' || line.msg === 'request errored')
        .map((line) => (line.req as { path: string }).path),
    close: () => app.close(),
  };
}

/** What the main port's token-protected route answers, parsed (the test's own view of the exposition). */
async function mainPortMetrics(app: NestFastifyApplication): Promise<ReturnType<typeof parseExposition>> {
  const response = await app.inject({
    method: 'GET',
    url: '/metrics',
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  expect(response.statusCode).toBe(200);
  return parseExposition(response.body);
}

describe('GET /metrics on a separate plain port (METRICS_PORT)', () => {
  let booted: Booted;
  let url: string;

  beforeAll(async () => {
    booted = await boot({ METRICS_PORT: 0 });
    url = `http://127.0.0.1:${booted.app.get(MetricsModule).listenerPort}/metrics`;
  });

  afterAll(() => booted.close());

  it('serves the Prometheus text format with the process metrics, every series labelled with the service', async () => {
    const metrics = await scrape(url);
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_cpu_user_seconds_total',
    ]) {
      expect(metrics.find(name)).not.toEqual([]);
    }
    expect(metrics.types.get('nodejs_gc_duration_seconds')).toBe('histogram');
    expect(metrics.types.get('dmrv_http_request_duration_seconds')).toBe('histogram');
    expect(metrics.samples.every((sample) => sample.labels.service === 'sample')).toBe(true);
  });

  it('labels requests with the route template, method and status, never the raw path', async () => {
    const before = await scrape(url);
    for (const id of ['42', '43', 'x%20y']) {
      expect((await booted.app.inject({ method: 'GET', url: `/items/${id}` })).statusCode).toBe(200);
    }
    expect((await booted.app.inject({ method: 'POST', url: '/items' })).statusCode).toBe(201);
    expect((await booted.app.inject({ method: 'GET', url: '/no/such/path?x=1' })).statusCode).toBe(404);
    const after = await scrape(url);
    const moved = (labels: Record<string, string>): number =>
      after.value(DURATION, labels) - before.value(DURATION, labels);
    expect(moved({ route: '/items/:id', method: 'GET', status: '200' })).toBe(3);
    expect(moved({ route: '/items', method: 'POST', status: '201' })).toBe(1);
    expect(moved({ route: 'unmatched', method: 'GET', status: '404' })).toBe(1);
    expect(after.find(DURATION).map((sample) => sample.labels.route)).not.toContain('/no/such/path');
    // Every bucket series is cumulative and the +Inf bucket is the count.
    const labels = { route: '/items/:id', method: 'GET', status: '200' };
    expect(after.value('dmrv_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(
      after.value(DURATION, labels),
    );
    expect(after.value('dmrv_http_request_duration_seconds_sum', labels)).toBeGreaterThan(0);
    // The same counts, as a counter family of their own.
    expect(after.value('dmrv_http_requests_total', labels)).toBe(after.value(DURATION, labels));
    expect(after.types.get('dmrv_http_requests_total')).toBe('counter');
  });

  it('answers only /metrics: 404 elsewhere, 405 for other methods', async () => {
    const base = url.replace('/metrics', '');
    expect((await fetch(`${base}/`)).status).toBe(404);
    expect((await fetch(`${base}/metrics/x`)).status).toBe(404);
    const post = await fetch(url, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('leaves the main port without /metrics: 404 like any unknown route', async () => {
    const response = await booted.app.inject({ method: 'GET', url: '/metrics' });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 404,
      body: { message: 'Cannot GET /metrics' },
    });
  });

  it('stops listening when the app closes', async () => {
    const other = await boot({ METRICS_PORT: 0 });
    const port = other.app.get(MetricsModule).listenerPort;
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
    await other.close();
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });
});

describe('GET /metrics on the main port behind METRICS_TOKEN', () => {
  let booted: Booted;

  beforeAll(async () => {
    booted = await boot({ METRICS_TOKEN: TOKEN });
  });

  afterAll(() => booted.close());

  it.each([
    ['no Authorization header', undefined],
    ['a wrong token', `Bearer ${TOKEN.slice(0, -1)}x`],
    ['the token with another scheme', `Basic ${TOKEN}`],
    ['a longer token', `Bearer ${TOKEN}0`],
  ])('refuses %s with 401 in the app error shape', async (_case, authorization) => {
    const response = await booted.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: authorization === undefined ? {} : { authorization },
    });
    expect({ status: response.statusCode, body: response.json() }).toEqual({
      status: 401,
      body: { message: 'A valid metrics token is required' },
    });
    expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
  });

  it('serves the exposition with the right token', async () => {
    const response = await booted.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `bearer ${TOKEN}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(response.headers['cache-control']).toBe('no-store');
    expect(parseExposition(response.body).find('process_cpu_user_seconds_total')).not.toEqual([]);
  });

  it('never counts a scrape, answered or refused, in the HTTP metrics or the access log', async () => {
    const logged = booted.accessPaths().length;
    await booted.app.inject({ method: 'GET', url: '/metrics' });
    await booted.app.inject({ method: 'GET', url: '/items/1' });
    const metrics = await mainPortMetrics(booted.app);
    expect(metrics.find(DURATION).map((sample) => sample.labels.route)).toEqual(['/items/:id']);
    expect(booted.accessPaths().slice(logged)).toEqual(['/items/1']);
  });
});

describe('without METRICS_PORT or METRICS_TOKEN', () => {
  it('answers /metrics on the main port 404 like any unknown route, logged and counted as unmatched', async () => {
    const booted = await boot({});
    try {
      const response = await booted.app.inject({ method: 'GET', url: '/metrics' });
      expect({ status: response.statusCode, body: response.json() }).toEqual({
        status: 404,
        body: { message: 'Cannot GET /metrics' },
      });
      expect(booted.accessPaths()).toEqual(['/metrics']);
    } finally {
      await booted.close();
    }
  });
});
