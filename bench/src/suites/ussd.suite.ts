import { randomBytes } from 'node:crypto';
import { assertBuilt, floorScript } from '../harness/paths';
import { LoadPlan, preflight } from '../harness/load';
import { runToCompletion } from '../harness/processes';
import { createDatabase, redisNamespace } from '../harness/resources';
import { baseEnv, SERVICE_BUILDS, startFloor, startService } from './services';
import { compare, selected, SuiteContext } from './suite';
import { SessionFlow, sessionIdentity, sessionSteps } from './ussd-sessions';

/** The committed example key (.env.example): a benchmark never needs a real secret. */
const EXAMPLE_PIN_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
/** Not a trivial PIN (no run, no repeated digit), so account creation accepts it. */
const PIN = '47213';

export function ussdFlows(customerId: string): SessionFlow[] {
  return [
    {
      name: 'dial → Know More → information screen → exit',
      hops: [
        { input: '', expect: 'CON', contains: 'Know More' },
        { input: '1', expect: 'CON', contains: 'Pricing' },
        { input: '2', expect: 'CON', contains: 'Stove' },
        { input: '*', expect: 'END' },
      ],
    },
    {
      name: 'create account (name, e-mail skipped, PIN twice)',
      hops: [
        { input: '', expect: 'CON', contains: 'Account' },
        { input: '2', expect: 'CON', contains: 'Create account' },
        { input: '2', expect: 'CON', contains: 'full name' },
        { input: 'Jane Wanjiku', expect: 'CON', contains: 'e-mail' },
        { input: '00', expect: 'CON', contains: 'PIN' },
        { input: PIN, expect: 'CON', contains: 'same PIN' },
        { input: PIN, expect: 'END', contains: 'Customer ID' },
      ],
    },
    {
      name: 'log in (Customer ID, PIN) → exit',
      hops: [
        { input: '', expect: 'CON', contains: 'Account' },
        { input: '2', expect: 'CON', contains: 'Log in' },
        { input: '1', expect: 'CON', contains: 'Customer ID' },
        { input: customerId, expect: 'CON', contains: 'PIN' },
        { input: PIN, expect: 'CON', contains: 'Welcome' },
        { input: '*', expect: 'END' },
      ],
    },
  ];
}

/** Creates the account the login sessions use, through the same menus, and reads its Customer ID off the screen. */
async function createLoginAccount(baseUrl: string, runTag: string): Promise<string> {
  const [, createFlow] = ussdFlows('C00000000');
  const steps = sessionSteps(createFlow!, sessionIdentity(`${runTag}-setup`), true);
  let lastScreen = '';
  await preflight(baseUrl, [
    ...steps.slice(0, -1),
    { ...steps.at(-1)!, expect: (body) => ((lastScreen = body), steps.at(-1)!.expect!(body)) },
  ]);
  const match = /\bC[0-9A-F]{8,}\b/.exec(lastScreen);
  if (!match)
    throw new Error(
      `no Customer ID on the closing screen of account creation: ${JSON.stringify(lastScreen)}`,
    );
  return match[0];
}

export async function ussdSuite(ctx: SuiteContext): Promise<void> {
  assertBuilt([SERVICE_BUILDS.ussd.main, SERVICE_BUILDS.ussd.cli, floorScript('ussd')]);
  ctx.progress('ussd-gateway: creating its database, migrating, starting the gateway and its floor');
  const databaseUrl = await createDatabase(ctx.resources, 'ussd', ctx.janitor);
  await runToCompletion(
    SERVICE_BUILDS.ussd.cli,
    ['migrate'],
    baseEnv({ DATABASE_URL: databaseUrl, PIN_ENCRYPTION_KEY: EXAMPLE_PIN_KEY }),
    ctx.janitor,
  );
  const service = await startService(ctx, 'ussd-gateway', SERVICE_BUILDS.ussd.main, {
    DATABASE_URL: databaseUrl,
    REDIS_URL: ctx.resources.redisUrl,
    REDIS_KEY_PREFIX: redisNamespace(ctx.resources, 'ussd', ctx.janitor),
    PIN_ENCRYPTION_KEY: EXAMPLE_PIN_KEY,
    // The load generator is one client on loopback; the per-IP limit would measure the limiter, not the gateway.
    RATE_LIMIT_EXEMPT_CIDRS: '127.0.0.1/32,::1/128',
  });
  const floor = await startFloor(ctx, 'ussd', {
    REDIS_URL: ctx.resources.redisUrl,
    REDIS_KEY_PREFIX: redisNamespace(ctx.resources, 'ussd-floor', ctx.janitor),
  });

  const runTag = `bench-${randomBytes(3).toString('hex')}`;
  const customerId = await createLoginAccount(service.baseUrl, runTag);
  for (const [index, flow] of ussdFlows(customerId).entries()) {
    if (!selected(ctx, `session: ${flow.name}`)) continue;
    const identities = sessionIdentity(`${runTag}-${index}`);
    const target: LoadPlan = {
      steps: sessionSteps(flow, identities, true),
      connections: ctx.options.sessions,
    };
    const floorPlan: LoadPlan = {
      steps: sessionSteps(flow, identities, false),
      connections: ctx.options.sessions,
    };
    await compare(ctx, {
      service: 'ussd-gateway',
      workload: `session: ${flow.name} (${flow.hops.length} hops; req/s = hops/s)`,
      floor: { ...floor, plan: floorPlan },
      target: { ...service, plan: target },
    });
  }
  await service.process.stop();
  await floor.process.stop();
}
