import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { status } from '@grpc/grpc-js';
import { OtlpReceiver, STOPPED_PORT, ReceivedSpan, startOtlpReceiver } from '@dmrv/testing';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

const SERVER = 2;
const CLIENT = 3;
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;
const PARAMS = 'ixo.token.v1beta1.Query/Params';
/** The traceparent the last call of `method` brought the node. */
const sentTo = (node: LocalChainNode, method: string): string =>
  node.lastMetadata.get(method)?.traceparent ?? 'none';

// Spans exported over OTLP/HTTP to a receiver the test runs, from a gateway booted by bootstrap() in front of the
// local chain node, which records the metadata of the last call to each method: that is how the test sees the
// traceparent arrive at the node. The node also echoes it (x-echo-traceparent), which the gateway never hands back.
describe('protocol-gateway tracing (OTEL_EXPORTER_OTLP_ENDPOINT set)', () => {
  let receiver: OtlpReceiver;
  let node: LocalChainNode;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    node = await startNode();
  });

  afterAll(async () => {
    await node?.stop();
    await receiver?.close();
  });

  async function traced(env: Record<string, string> = {}): Promise<Gateway> {
    return startGateway({ GRPC_UPSTREAM: node.address, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, ...env });
  }

  const spansOf = (traceId: string): ReceivedSpan[] =>
    receiver.spans.filter((span) => span.traceId === traceId);

  it('exports a span per request named after the route template, with the request id, and a child span per gRPC call whose context reaches the node', async () => {
    const gateway = await traced();
    const answer = await gateway.get(`/ixo/token/params`, { 'x-request-id': 'trace-me-1' });
    await gateway.close(); // exports what is pending
    expect(answer.status).toBe(200);
    expect(answer.headers['grpc-metadata-x-echo-traceparent']).toBeUndefined();
    const [, traceId, callSpanId] = TRACEPARENT.exec(sentTo(node, PARAMS)) ?? [];
    expect(traceId).toBeDefined();

    const spans = spansOf(traceId!);
    const server = spans.find((span) => span.kind === SERVER)!;
    const call = spans.find((span) => span.kind === CLIENT)!;
    expect(server).toMatchObject({
      name: 'GET /ixo/token/params',
      parentSpanId: undefined,
      service: 'protocol-gateway',
      attributes: {
        'http.request.method': 'GET',
        'http.route': '/ixo/token/params',
        'http.response.status_code': 200,
        'url.path': '/ixo/token/params',
        'http.request.header.x-request-id': ['trace-me-1'],
      },
    });
    expect(call).toMatchObject({
      name: 'ixo.token.v1beta1.Query/Params',
      spanId: callSpanId,
      parentSpanId: server.spanId,
      attributes: {
        'rpc.system': 'grpc',
        'rpc.service': 'ixo.token.v1beta1.Query',
        'rpc.method': 'Params',
        'server.port': node.port,
      },
    });
    expect(spans).toHaveLength(2);
  });

  it("continues the caller's trace from its traceparent header, and marks the call that failed", async () => {
    const caller = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7' };
    const gateway = await traced();
    const found = await gateway.get('/ixo/entity/did:ixo:entity:absent', {
      traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
    });
    await gateway.close();
    expect(found.status).toBe(404);
    const spans = spansOf(caller.traceId);
    const server = spans.find((span) => span.kind === SERVER)!;
    expect(server).toMatchObject({ name: 'GET /ixo/entity/{id}', parentSpanId: caller.spanId });
    // A 404 is an answer, not a failure of the server; the call that got NOT_FOUND did fail.
    expect(server.status.code ?? 0).toBe(0);
    expect(spans.find((span) => span.kind === CLIENT)).toMatchObject({
      parentSpanId: server.spanId,
      status: { code: 2, message: 'NOT_FOUND' },
    });
  });

  it("sends the node its own span's context, never a caller's Grpc-Metadata-Traceparent; a kept answer carries no trace of who fetched it (issue 32)", async () => {
    const caller = { traceId: '0af7651916cd43dd8448eb211c80319c', spanId: 'b7ad6b7169203331' };
    const smuggled = '00-11111111111111111111111111111111-2222222222222222-01';
    const gateway = await traced({ CACHE_LATEST_TTL_MS: '60000' });
    const first = await gateway.get('/ixo/token/params', {
      traceparent: `00-${caller.traceId}-${caller.spanId}-01`,
      tracestate: 'caller=state-1',
      'grpc-metadata-traceparent': smuggled,
      'grpc-metadata-tracestate': 'smuggled=state-2',
    });
    const second = await gateway.get('/ixo/token/params');
    await gateway.close();
    const [, traceId, callSpanId] = TRACEPARENT.exec(sentTo(node, PARAMS)) ?? [];
    expect(traceId).toBe(caller.traceId);
    const call = spansOf(caller.traceId).find((span) => span.kind === CLIENT);
    expect(call?.spanId).toBe(callSpanId);
    // The caller's W3C tracestate travels with the trace it belongs to; the smuggled one does not.
    expect(node.lastMetadata.get(PARAMS)?.tracestate).toBe('caller=state-1');
    expect([first.status, second.status]).toEqual([200, 200]);
    for (const answer of [first, second]) {
      expect(answer.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
      const carried = Object.values(answer.headers).map(String);
      for (const trace of [
        caller.traceId,
        '11111111111111111111111111111111',
        'caller=state-1',
        'smuggled=state-2',
      ])
        expect(carried.filter((value) => value.includes(trace))).toEqual([]);
    }
  });

  it('marks the span of a request answered with a 5xx as failed', async () => {
    const failing = await startNode({ failures: new Map([['*', status.INTERNAL]]) });
    const gateway = await startGateway({
      GRPC_UPSTREAM: failing.address,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    });
    const answer = await gateway.get('/ixo/token/params');
    await gateway.close();
    await failing.stop();
    expect(answer.status).toBe(500);
    const traceId = TRACEPARENT.exec(sentTo(failing, PARAMS))?.[1];
    const server = spansOf(traceId ?? 'none').find((span) => span.kind === SERVER);
    expect(server).toMatchObject({
      name: 'GET /ixo/token/params',
      status: { code: 2 },
      attributes: { 'http.response.status_code': 500 },
    });
  });

  it('serves as usual and closes cleanly when the receiver is down (the spans are dropped)', async () => {
    const gateway = await startGateway({
      GRPC_UPSTREAM: node.address,
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${STOPPED_PORT}`,
    });
    expect((await gateway.get('/ixo/token/params')).status).toBe(200);
    await expect(gateway.close()).resolves.toBeUndefined();
  });

  it('sends the configured headers and resource, and leaves the metrics route out', async () => {
    const requests = receiver.requests.length;
    const gateway = await traced({
      OTEL_EXPORTER_OTLP_HEADERS: 'x-collector-key=k%3D1',
      OTEL_SERVICE_NAME: 'gateway-under-test',
      METRICS_TOKEN: 'protocol-metrics-token-01',
    });
    const answer = await gateway.get('/ixo/token/params', { 'x-request-id': 'trace-me-3' });
    const scraped = await gateway.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: 'Bearer protocol-metrics-token-01' },
    });
    await gateway.close();
    expect([answer.status, scraped.statusCode]).toEqual([200, 200]);
    const traceId = TRACEPARENT.exec(sentTo(node, PARAMS))![1]!;
    expect(spansOf(traceId).map((span) => span.service)).toEqual([
      'gateway-under-test',
      'gateway-under-test',
    ]);
    const sent = receiver.requests.slice(requests);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.map((headers) => headers['x-collector-key'])).toEqual(sent.map(() => 'k=1'));
    expect(receiver.spans.filter((span) => span.name.includes('/metrics'))).toEqual([]);
  });
});

describe('protocol-gateway with tracing off', () => {
  const BOOTSTRAP = join(__dirname, '..', 'dist', 'bootstrap.js');

  /** The OpenTelemetry modules a built gateway has loaded once booted, in a process of its own. */
  async function loadedTelemetry(env: Record<string, string>): Promise<string[]> {
    const script = `
      const { bootstrap } = require(${JSON.stringify(BOOTSTRAP)});
      bootstrap(${JSON.stringify({ GRPC_UPSTREAM: '127.0.0.1:9', REFLECTION_ENABLED: 'false', LOG_LEVEL: 'silent', ...env })})
        .then(async ({ app }) => {
          await app.init();
          await app.inject({ method: 'GET', url: '/health/live' });
          const loaded = Object.keys(require.cache).filter((path) => /@opentelemetry[\\\\/](sdk-|exporter-|otlp-|context-|core|resources)/.test(path));
          await app.close();
          process.stdout.write(JSON.stringify(loaded));
        });`;
    // Asynchronously: the receiver the child exports to runs in this process.
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
      env: { PATH: process.env.PATH },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as string[];
  }

  beforeAll(() => {
    if (!existsSync(BOOTSTRAP))
      throw new Error(`${BOOTSTRAP} is missing: build the workspace first (pnpm run build)`);
  });

  // Three processes boot a gateway each: a failure bound, not a timing.
  it('loads no part of the OpenTelemetry SDK without an endpoint, nor with OTEL_SDK_DISABLED', async () => {
    expect(await loadedTelemetry({})).toEqual([]);
    const receiver = await startOtlpReceiver();
    try {
      expect(
        await loadedTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_SDK_DISABLED: 'true' }),
      ).toEqual([]);
      // The same probe sees the SDK when tracing is on: the check above can fail.
      expect((await loadedTelemetry({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })).join('\n')).toMatch(
        /sdk-trace/,
      );
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('forwards no traceparent of its own', async () => {
    const node = await startNode();
    const gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    try {
      const answer = await gateway.get('/ixo/token/params');
      expect(answer.status).toBe(200);
      expect(node.lastMetadata.get(PARAMS)).not.toHaveProperty('traceparent');
    } finally {
      await gateway.close();
      await node.stop();
    }
  });
});
