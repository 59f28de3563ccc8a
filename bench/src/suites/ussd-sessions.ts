import { randomBytes } from 'node:crypto';
import { Step, StepContext } from '../harness/steps';

/** One hop of a session: what the subscriber types, and how the screen must start. */
export interface Hop {
  /** What the subscriber types; CUSTOMER_ID_INPUT stands for the Customer ID of the pass's account. */
  input: string;
  expect: 'CON' | 'END';
  /** Text the screen must also contain (the screen's identity, so a wrong menu cannot pass as success). */
  contains?: string;
  /** The gateway hashes a PIN on this hop (scrypt): the PIN floor does too. */
  hashesPin?: boolean;
  /** The expected screen here means the session did what it is for (an account created, a subscriber signed in). */
  completes?: boolean;
}

export interface SessionFlow {
  name: string;
  hops: Hop[];
}

/** Stands for the pass's Customer ID in a hop's input (log-in sessions each sign in to an account of their own). */
export const CUSTOMER_ID_INPUT = '{customerId}';

/**
 * Sent to the floor only, on hops where the gateway hashes a PIN: the PIN floor runs the same scrypt there, so PIN
 * sessions are compared with the least work that includes the security budget, not with a floor that hashes nothing.
 */
export const FLOOR_PIN_HASH_HEADER = 'x-floor-pin-hash';

export const SERVICE_CODE = '*384#';
/** Digits a run's phone numbers start with after +2547; each session gets its own number. */
const PHONE_DIGITS = 8;

/** The aggregator's cumulative `text`: every input so far joined by `*`; empty on the dial. */
export function cumulativeText(inputs: string[]): string {
  return inputs.filter((input, index) => index > 0 || input !== '').join('*');
}

export interface SessionIdentity {
  sessionId: string;
  phoneNumber: string;
  /** The account a log-in pass signs in to. */
  customerId?: string;
}

/**
 * A fresh session id and phone number per pass of the flow: every autocannon connection plays whole sessions one
 * after another, so N connections are N subscribers dialling in parallel. With `customerIds`, the passes take the
 * accounts in turn (one per subscriber when there are as many as connections: PIN attempts on one Customer ID are
 * limited to PIN_MAX_ATTEMPTS at once, and a bench of one account would measure that wait).
 */
export function sessionIdentity(runTag: string, customerIds: readonly string[] = []): () => SessionIdentity {
  let counter = 0;
  const base = randomBytes(4).readUInt32BE() % 10 ** PHONE_DIGITS;
  return () => {
    counter += 1;
    return {
      sessionId: `${runTag}-${counter.toString(36)}`,
      phoneNumber: `+2547${String((base + counter) % 10 ** PHONE_DIGITS).padStart(PHONE_DIGITS, '0')}`,
      ...(customerIds.length > 0 ? { customerId: customerIds[counter % customerIds.length] } : {}),
    };
  };
}

export function screenCheck(hop: Hop): (body: string) => string | undefined {
  return (body) => {
    if (!body.startsWith(`${hop.expect} `))
      return `expected ${hop.expect}, got ${JSON.stringify(body.slice(0, 120))}`;
    if (hop.contains !== undefined && !body.includes(hop.contains))
      return `expected a screen with ${JSON.stringify(hop.contains)}, got ${JSON.stringify(body.slice(0, 120))}`;
    return undefined;
  };
}

/** What a PIN hop shed by the gateway's hash admission says (END, nothing hashed, nothing charged). */
const PIN_HASH_BUSY = /^END The service is busy/;

export function isPinHashBusy(body: string): boolean {
  return PIN_HASH_BUSY.test(body);
}

export interface StepOptions {
  /** The gateway's screens are checked (false: the floor, which answers one fixed screen). */
  check: boolean;
  /**
   * On the hops that hash a PIN, the gateway's busy END is a shed hop, not a wrong one: the session ends there and
   * the subscriber dials again (counted apart, as sessions shed; see SessionCounter).
   */
  shedBusyPinHops?: boolean;
}

/** The hops of a flow as load steps; `check` false gives the floor the same requests without the screen checks. */
export function sessionSteps(
  flow: SessionFlow,
  nextIdentity: () => SessionIdentity,
  options: boolean | StepOptions,
): Step[] {
  const { check, shedBusyPinHops } =
    typeof options === 'boolean' ? { check: options, shedBusyPinHops: false } : options;
  const inputs: string[] = [];
  return flow.hops.map((hop, index) => {
    inputs.push(hop.input);
    const text = cumulativeText(inputs);
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (!check && hop.hashesPin) headers[FLOOR_PIN_HASH_HEADER] = '1';
    return {
      method: 'POST',
      path: '/api/ussd',
      headers,
      prepare:
        index === 0
          ? (context: StepContext) => {
              const identity = nextIdentity();
              context.sessionId = identity.sessionId;
              context.phoneNumber = identity.phoneNumber;
              if (identity.customerId !== undefined) context.customerId = identity.customerId;
            }
          : undefined,
      body: (context: StepContext) =>
        JSON.stringify({
          sessionId: context.sessionId,
          serviceCode: SERVICE_CODE,
          phoneNumber: context.phoneNumber,
          text: text.includes(CUSTOMER_ID_INPUT)
            ? text.replace(CUSTOMER_ID_INPUT, String(context.customerId))
            : text,
        }),
      expect: check
        ? screenCheck(hop)
        : (body) => (body.startsWith('CON ') ? undefined : `floor answered ${body.slice(0, 60)}`),
      ...(check && shedBusyPinHops && hop.hashesPin ? { shed: isPinHashBusy } : {}),
      ...(hop.completes ? { completes: true } : {}),
      ...(hop.hashesPin ? { doesWork: true } : {}),
    };
  });
}
