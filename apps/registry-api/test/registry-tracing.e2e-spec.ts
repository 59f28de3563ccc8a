import {
  createTestDatabase,
  OtlpReceiver,
  ReceivedSpan,
  ServiceProcess,
  startOtlpReceiver,
  startServiceProcess,
  TestDatabase,
} from '@dmrv/testing';
import { loadFixture, RegistryFixture } from './fixtures/registry-fixture';

const SERVER = 2;
const CLIENT = 3;

// Spans exported over OTLP/HTTP to a receiver the test runs, from the built registry running in a process of its own
// on a real PostgreSQL (the pg instrumentation hooks `require`, which jest's module registry bypasses): a span per
// request, a child span per query and per wait for a pooled connection.
describe('registry-api tracing', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    database = await createTestDatabase('registry_tracing');
    fixture = await loadFixture(database.url);
    receiver = await startOtlpReceiver();
  });

  // A test that failed half-way leaves no process behind.
  const running: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(running.splice(0).map((service) => service.stop()));
  });

  afterAll(async () => {
    await receiver?.close();
    await fixture?.close();
    await database?.drop();
  });

  async function tracedService(env: Record<string, string> = {}): Promise<ServiceProcess> {
    const service = await startServiceProcess('registry-api', {
      LOG_LEVEL: 'warn',
      DATABASE_URL: database.url,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      ...env,
    });
    running.push(service);
    return service;
  }

  /** Stops the service, which exports its pending spans as it drains. */
  async function stopped(service: ServiceProcess): Promise<void> {
    const code = await service.stop();
    if (code !== 0) throw new Error(`registry-api exited ${code}:\n${service.output()}`);
  }

  function traceOf(requestId: string): { server: ReceivedSpan; children: ReceivedSpan[] } {
    const server = receiver.spans.find(
      (span) =>
        span.kind === SERVER &&
        (span.attributes['http.request.header.x-request-id'] as string[] | undefined)?.[0] === requestId,
    );
    if (!server) throw new Error(`no span for request ${requestId}`);
    return { server, children: receiver.spans.filter((span) => span.parentSpanId === server.spanId) };
  }

  /** The children that are queries, not waits for a connection (`pg-pool.connect`). */
  const queriesOf = (children: ReceivedSpan[]): ReceivedSpan[] =>
    children.filter((span) => span.attributes['db.query.text'] !== undefined);

  it('exports the request span with a child span per PostgreSQL query, the SQL without its values', async () => {
    const service = await tracedService();
    const bearer = { authorization: `Bearer ${fixture.client.bearerKey}` };
    const response = await fetch(`${service.url}/v1/households/stats?project_id=project-a`, {
      headers: { ...bearer, 'x-request-id': 'registry-trace-1' },
    });
    await response.arrayBuffer();
    await stopped(service);
    expect(response.status).toBe(200);
    const { server, children } = traceOf('registry-trace-1');
    expect(server).toMatchObject({
      name: 'GET /v1/households/stats',
      service: 'registry-api',
      attributes: { 'http.route': '/v1/households/stats', 'http.response.status_code': 200 },
    });
    const queries = queriesOf(children);
    expect(queries.length).toBeGreaterThanOrEqual(1);
    for (const query of queries) {
      expect(query).toMatchObject({
        kind: CLIENT,
        name: `pg.query:SELECT ${database.name}`,
        traceId: server.traceId,
        attributes: {
          'db.system.name': 'postgresql',
          'db.namespace': database.name,
          'server.address': '127.0.0.1',
        },
      });
    }
    expect(children.filter((span) => span.name === 'pg-pool.connect')).not.toHaveLength(0);
    const statements = queries.map((query) => String(query.attributes['db.query.text']));
    expect(statements.some((sql) => sql.includes('household_counts'))).toBe(true);
    expect(JSON.stringify(children)).not.toContain('project-a');
  });

  it('keeps each query in the trace of the request that ran it when requests wait for the one connection', async () => {
    // One connection: a request whose query waits for it is handed the connection when another request releases it.
    // Without binding, the waiting query's span would land in the releasing request's trace.
    const service = await tracedService({
      DATABASE_POOL_SIZE: '1',
      AGGREGATE_CACHE_TTL_SECONDS: '0',
      RECORD_CACHE_MAX_ENTRIES: '0',
    });
    const bearer = { authorization: `Bearer ${fixture.client.bearerKey}` };
    const endpoints = [
      '/v1/households/stats',
      '/v1/devices/status',
      '/v1/credits/retired',
      '/v1/claims/fuel-purchase',
    ];
    const ask = async (url: string, id: string): Promise<number> => {
      const response = await fetch(`${service.url}${url}`, { headers: { ...bearer, 'x-request-id': id } });
      await response.arrayBuffer();
      return response.status;
    };
    /** The SQL a request ran, but the API-client lookup (made or not, depending on the cache). */
    const sqlOf = (id: string): string[] =>
      queriesOf(traceOf(id).children)
        .map((span) => String(span.attributes['db.query.text']))
        .filter((sql) => !sql.includes('api_clients'))
        .sort();
    // Alone first, to learn each endpoint's queries; then all at once.
    for (const [index, url] of endpoints.entries()) expect(await ask(url, `alone-${index}`)).toBe(200);
    const together = await Promise.all(endpoints.map((url, index) => ask(url, `together-${index}`)));
    await stopped(service);
    expect(together).toEqual([200, 200, 200, 200]);
    for (const index of endpoints.keys()) {
      expect(sqlOf(`alone-${index}`).length).toBeGreaterThan(0);
      expect(sqlOf(`together-${index}`)).toEqual(sqlOf(`alone-${index}`));
    }
    expect(new Set(endpoints.map((_url, index) => traceOf(`together-${index}`).server.traceId)).size).toBe(
      endpoints.length,
    );
  });
});
