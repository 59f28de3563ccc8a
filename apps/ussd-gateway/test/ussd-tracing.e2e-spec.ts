import { OtlpReceiver, ReceivedSpan, startOtlpReceiver } from '@dmrv/testing';
import { Backing, createBacking, Handset, startApp } from './ussd-test-kit';

const SERVER = 2;
const CLIENT = 3;

// Spans exported over OTLP/HTTP to a receiver the test runs, from the gateway booted by bootstrap() on a real
// PostgreSQL and Redis. A hop is a POST: its Redis and PostgreSQL spans prove the request's context survives the
// body parser.
describe('ussd-gateway tracing', () => {
  let backing: Backing;
  let receiver: OtlpReceiver;

  beforeAll(async () => {
    backing = await createBacking('ussd-tracing');
    receiver = await startOtlpReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await backing?.cleanup();
  });

  const serverSpans = (): ReceivedSpan[] =>
    receiver.spans.filter((span) => span.kind === SERVER && span.name === 'POST /api/ussd');
  const childrenOf = (parent: ReceivedSpan): ReceivedSpan[] =>
    receiver.spans.filter((span) => span.parentSpanId === parent.spanId);

  it('exports a span per hop with the Redis scripts and PostgreSQL queries it ran as children', async () => {
    const { app } = await startApp(
      backing.env({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, RATE_LIMIT_PER_IP: '1000' }),
    );
    const handset = new Handset(app);
    await handset.dial();
    const created = await handset.sendAll('2', '2', 'Traced Person', '00', '47213', '47213');
    await app.close();
    expect(created).toMatch(/^END Account created/);

    const hops = serverSpans().filter((span) => span.service === 'ussd-gateway');
    expect(hops).toHaveLength(7);
    expect(new Set(hops.map((span) => span.traceId)).size).toBe(7);
    for (const hop of hops) {
      expect(hop.attributes).toMatchObject({ 'http.route': '/api/ussd', 'http.response.status_code': 200 });
      expect(childrenOf(hop).map((span) => span.name)).toEqual(
        expect.arrayContaining(['EVALSHA ussdCountLockAndRead', 'EVALSHA ussdWriteAndUnlock']),
      );
      for (const script of childrenOf(hop).filter((span) => span.name.startsWith('EVALSHA'))) {
        expect(script).toMatchObject({
          kind: CLIENT,
          traceId: hop.traceId,
          attributes: { 'db.system.name': 'redis' },
        });
      }
    }
    // The last hop created the account: its SQL is a child of that hop, and carries no value (no PIN hash, no name).
    const last = hops[hops.length - 1]!;
    const queries = childrenOf(last).filter((span) => span.attributes['db.system.name'] === 'postgresql');
    expect(queries.map((span) => String(span.attributes['db.query.text']))).toContainEqual(
      expect.stringMatching(/INSERT INTO ussd_accounts/),
    );
    expect(queries.every((span) => span.kind === CLIENT && span.traceId === last.traceId)).toBe(true);
    expect(JSON.stringify(receiver.spans)).not.toMatch(/47213|Traced Person/);
  });
});
