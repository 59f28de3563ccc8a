import { OtlpReceiver, ReceivedSpan, startOtlpReceiver, startServiceProcess } from '@dmrv/testing';
import { Backing, createBacking, SERVICE_CODE } from './ussd-test-kit';

const SERVER = 2;
const CLIENT = 3;

// Spans exported over OTLP/HTTP to a receiver the test runs, from the built gateway running in a process of its own on
// a real PostgreSQL and Redis (the pg instrumentation hooks `require`, which jest's module registry bypasses). A hop
// is a POST: its Redis and PostgreSQL spans prove the request's context survives the body parser.
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
    const env = backing.env({
      LOG_LEVEL: 'warn',
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      RATE_LIMIT_PER_IP: '1000',
    });
    const gateway = await startServiceProcess(
      'ussd-gateway',
      Object.fromEntries(
        Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
      ),
    );
    let created = '';
    let exitCode: number | null = null;
    try {
      // A handset's session: each hop sends every input so far, as the aggregator does.
      const session = {
        sessionId: `ATUid_tracing_${process.pid}`,
        serviceCode: SERVICE_CODE,
        phoneNumber: '+254712345678',
      };
      const inputs: string[] = [];
      for (const input of [undefined, '2', '2', 'Traced Person', '00', '47213', '47213']) {
        if (input !== undefined) inputs.push(input);
        const response = await fetch(`${gateway.url}/api/ussd`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...session, text: inputs.join('*') }),
        });
        expect(response.status).toBe(200);
        created = await response.text();
      }
    } finally {
      exitCode = await gateway.stop();
    }
    expect(exitCode).toBe(0);
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
