import { randomBytes } from 'node:crypto';
import { assertBuilt, floorScript } from '../harness/paths';
import { LoadPlan, preflight } from '../harness/load';
import { SESSION_PASS_MIN_S } from '../harness/options';
import { runToCompletion } from '../harness/processes';
import { createDatabase, redisNamespace } from '../harness/resources';
import { baseEnv, SERVICE_BUILDS, startFloor, startService } from './services';
import { Alongside, compare, selected, SuiteContext } from './suite';
import { CUSTOMER_ID_INPUT, SessionFlow, sessionIdentity, sessionSteps } from './ussd-sessions';

/** The committed example key (.env.example): a benchmark never needs a real secret. */
const EXAMPLE_PIN_KEY = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';
/** Not a trivial PIN (no run, no repeated digit), so account creation accepts it. */
const PIN = '47213';
/** Information subscribers of the mixed workload, beside `--sessions` PIN subscribers. */
const MIXED_INFORMATION_SUBSCRIBERS = 16;
/**
 * What the PIN rows count: the gateway sheds PIN hops the floor queues, so hops/s would reward shedding; both sides
 * are measured by the sessions they complete (and the hashes those took), and sessions shed are counted apart.
 */
const PIN_ROW_MEASURE = 'PIN floor; req/s, Ratio and p50/p99 = completed sessions/s and their hops';
/** Accounts created before measuring, in parallel batches of this many. */
const SETUP_PARALLEL = 8;

export const INFORMATION_FLOW: SessionFlow = {
  name: 'dial → Know More → information screen → exit',
  hops: [
    { input: '', expect: 'CON', contains: 'Know More' },
    { input: '1', expect: 'CON', contains: 'Pricing' },
    { input: '2', expect: 'CON', contains: 'Stove' },
    { input: '*', expect: 'END' },
  ],
};

export const CREATE_ACCOUNT_FLOW: SessionFlow = {
  name: 'create account (name, e-mail skipped, PIN twice)',
  hops: [
    { input: '', expect: 'CON', contains: 'Account' },
    { input: '2', expect: 'CON', contains: 'Create account' },
    { input: '2', expect: 'CON', contains: 'full name' },
    { input: 'Jane Wanjiku', expect: 'CON', contains: 'e-mail' },
    { input: '00', expect: 'CON', contains: 'PIN' },
    { input: PIN, expect: 'CON', contains: 'same PIN' },
    { input: PIN, expect: 'END', contains: 'Customer ID', hashesPin: true, completes: true },
  ],
};

/** Each pass signs in to an account of its own (CUSTOMER_ID_INPUT), created before measuring. */
export const LOG_IN_FLOW: SessionFlow = {
  name: 'log in (Customer ID, PIN) → exit',
  hops: [
    { input: '', expect: 'CON', contains: 'Account' },
    { input: '2', expect: 'CON', contains: 'Log in' },
    { input: '1', expect: 'CON', contains: 'Customer ID' },
    { input: CUSTOMER_ID_INPUT, expect: 'CON', contains: 'PIN' },
    { input: PIN, expect: 'CON', contains: 'Welcome', hashesPin: true, completes: true },
    { input: '*', expect: 'END' },
  ],
};

export function ussdFlows(): SessionFlow[] {
  return [INFORMATION_FLOW, CREATE_ACCOUNT_FLOW, LOG_IN_FLOW];
}

/** Creates one account through the same menus and reads its Customer ID off the closing screen. */
async function createAccount(baseUrl: string, runTag: string): Promise<string> {
  const steps = sessionSteps(CREATE_ACCOUNT_FLOW, sessionIdentity(runTag), true);
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

/** One account per log-in subscriber, created a few at a time (each costs a PIN hash). */
async function createLoginAccounts(baseUrl: string, runTag: string, count: number): Promise<string[]> {
  const customerIds: string[] = [];
  for (let start = 0; start < count; start += SETUP_PARALLEL) {
    const batch = Array.from({ length: Math.min(SETUP_PARALLEL, count - start) }, (_, offset) =>
      createAccount(baseUrl, `${runTag}-setup-${start + offset}`),
    );
    customerIds.push(...(await Promise.all(batch)));
  }
  return customerIds;
}

/**
 * The service's and the floor's steps of a flow, with the same identities. A PIN hop the gateway sheds (its busy
 * END) ends that session on the service's side, as it would for a subscriber, who dials again.
 */
function plans(
  flow: SessionFlow,
  tag: string,
  customerIds: string[],
  connections: number,
): { floor: LoadPlan; target: LoadPlan } {
  const identities = sessionIdentity(tag, flow === LOG_IN_FLOW ? customerIds : []);
  return {
    target: { steps: sessionSteps(flow, identities, { check: true, shedBusyPinHops: true }), connections },
    floor: { steps: sessionSteps(flow, identities, false), connections },
  };
}

/**
 * PIN subscribers of the mixed workload: each connection plays an account creation, then a log-in, in turn. A PIN
 * hop the gateway sheds under load (its busy END: not checked, nothing charged) ends the pass there, counted as shed.
 */
function mixedPin(runTag: string, customerIds: string[], connections: number): Alongside {
  const create = plans(CREATE_ACCOUNT_FLOW, `${runTag}-mix-c`, customerIds, connections);
  const logIn = plans(LOG_IN_FLOW, `${runTag}-mix-l`, customerIds, connections);
  return {
    target: { steps: [...create.target.steps, ...logIn.target.steps], connections },
    floor: { steps: [...create.floor.steps, ...logIn.floor.steps], connections },
  };
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
    // No aggregator posts session-end notifications here; production (NODE_ENV) requires the endpoint set or off.
    EVENTS_ENABLED: 'false',
  });
  // The PIN floor: the same floor, hashing on the hops marked `hashesPin` with the gateway's default cost.
  const floor = await startFloor(ctx, 'ussd', {
    REDIS_URL: ctx.resources.redisUrl,
    REDIS_KEY_PREFIX: redisNamespace(ctx.resources, 'ussd-floor', ctx.janitor),
    PIN_HASH_COST_LOG2: ctx.options.serviceEnv.PIN_HASH_COST_LOG2 ?? '14',
  });

  const runTag = `bench-${randomBytes(3).toString('hex')}`;
  const sessions = ctx.options.sessions;
  const minimumPassS = ctx.options.mode === 'smoke' ? undefined : SESSION_PASS_MIN_S;
  const needsAccounts = ['session: log in', 'session mix'].some((name) => selected(ctx, name));
  const customerIds = needsAccounts ? await createLoginAccounts(service.baseUrl, runTag, sessions) : [];
  for (const [index, flow] of ussdFlows().entries()) {
    if (!selected(ctx, `session: ${flow.name}`)) continue;
    const { floor: floorPlan, target } = plans(flow, `${runTag}-${index}`, customerIds, sessions);
    const pinSessions = flow.hops.some((hop) => hop.completes);
    await compare(ctx, {
      service: 'ussd-gateway',
      workload: `session: ${flow.name} (${flow.hops.length} hops; ${pinSessions ? PIN_ROW_MEASURE : 'req/s = hops/s'})`,
      ...(pinSessions
        ? { counts: 'sessions' as const, workName: 'scrypt hashes', settleBetweenPasses: true, minimumPassS }
        : {}),
      floor: { ...floor, plan: floorPlan },
      target: { ...service, plan: target },
    });
  }
  const mixed = `session mix: ${MIXED_INFORMATION_SUBSCRIBERS} Know More subscribers beside ${sessions} PIN subscribers (creation, log-in) at saturation (req/s, p50/p99: the Know More hops; PIN floor)`;
  if (selected(ctx, mixed)) {
    const information = plans(
      INFORMATION_FLOW,
      `${runTag}-mix-i`,
      customerIds,
      MIXED_INFORMATION_SUBSCRIBERS,
    );
    await compare(
      ctx,
      {
        service: 'ussd-gateway',
        workload: mixed,
        settleBetweenPasses: true,
        minimumPassS,
        floor: { ...floor, plan: information.floor },
        target: { ...service, plan: information.target },
      },
      mixedPin(runTag, customerIds, sessions),
    );
  }
  await service.process.stop();
  await floor.process.stop();
}
