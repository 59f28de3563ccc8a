import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { LoadPlan, measure } from './load';
import { StepContext } from './steps';

/**
 * autocannon against a server on loopback that sheds every other session on its costly step: the harness must end a
 * shed session there (its next step is never sent), start the next session, and count what each side saw.
 */
describe('measure: sessions that complete or are shed', () => {
  let server: Server;
  let baseUrl: string;
  const seen = { started: 0, shed: 0, completed: 0, exitsAfterShed: 0, exits: 0 };
  const shedSessions = new Set<string>();

  beforeAll(async () => {
    let costly = 0;
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        const { session } = JSON.parse(body) as { session: string };
        let answer = 'next';
        if (request.url === '/start') seen.started += 1;
        if (request.url === '/costly') {
          costly += 1;
          if (costly % 2 === 0) {
            shedSessions.add(session);
            seen.shed += 1;
            answer = 'busy';
          } else {
            seen.completed += 1;
            answer = 'done';
          }
        }
        if (request.url === '/exit') {
          seen.exits += 1;
          if (shedSessions.has(session)) seen.exitsAfterShed += 1;
        }
        response.writeHead(200, { 'content-type': 'text/plain' }).end(answer);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('ends a shed session at the shed step, counts it apart, and completes the others', async () => {
    let sessions = 0;
    const body = (context: StepContext): string => JSON.stringify({ session: context.session });
    const plan: LoadPlan = {
      connections: 4,
      steps: [
        {
          method: 'POST',
          path: '/start',
          prepare: (context) => (context.session = `s${(sessions += 1)}`),
          body,
        },
        {
          method: 'POST',
          path: '/costly',
          body,
          expect: (answer) => (answer === 'done' ? undefined : `got ${answer}`),
          shed: (answer) => answer === 'busy',
          completes: true,
          doesWork: true,
        },
        {
          method: 'POST',
          path: '/exit',
          body,
          expect: (answer) => (answer === 'next' ? undefined : `got ${answer}`),
        },
      ],
    };

    const result = await measure(baseUrl, plan, 1);

    const tally = result.sessions!;
    expect({
      exitsAfterShed: seen.exitsAfterShed,
      unexpected: result.unexpected,
      non2xx: result.non2xx,
    }).toEqual({
      exitsAfterShed: 0,
      unexpected: 0,
      non2xx: 0,
    });
    expect(tally.shed).toBeGreaterThan(0);
    expect(tally.completed).toBeGreaterThan(0);
    // The run stops with up to one request per connection unanswered: what the server did and the bench saw differ
    // by at most that.
    expect(seen.shed - tally.shed).toBeGreaterThanOrEqual(0);
    expect(seen.shed - tally.shed).toBeLessThanOrEqual(plan.connections);
    expect(seen.completed - tally.completed).toBeGreaterThanOrEqual(0);
    expect(seen.completed - tally.completed).toBeLessThanOrEqual(plan.connections);
    expect(tally.work).toBe(tally.completed);
    expect(result.shed).toBe(tally.shed);
    expect(result.ok).toBe(result.requests - tally.shed);
    // Every completed session counts its start and costly hops (the exit comes after completion).
    expect(tally.completedHops).toBe(tally.completed * 2);
  });
});
