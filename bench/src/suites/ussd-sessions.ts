import { randomBytes } from 'node:crypto';
import { Step, StepContext } from '../harness/load';

/** One hop of a session: what the subscriber types, and how the screen must start. */
export interface Hop {
  input: string;
  expect: 'CON' | 'END';
  /** Text the screen must also contain (the screen's identity, so a wrong menu cannot pass as success). */
  contains?: string;
}

export interface SessionFlow {
  name: string;
  hops: Hop[];
}

export const SERVICE_CODE = '*384#';
/** Digits a run's phone numbers start with after +2547; each session gets its own number. */
const PHONE_DIGITS = 8;

/** The aggregator's cumulative `text`: every input so far joined by `*`; empty on the dial. */
export function cumulativeText(inputs: string[]): string {
  return inputs.filter((input, index) => index > 0 || input !== '').join('*');
}

/**
 * A fresh session id and phone number per pass of the flow: every autocannon connection plays whole sessions one
 * after another, so N connections are N subscribers dialling in parallel.
 */
export function sessionIdentity(runTag: string): () => { sessionId: string; phoneNumber: string } {
  let counter = 0;
  const base = randomBytes(4).readUInt32BE() % 10 ** PHONE_DIGITS;
  return () => {
    counter += 1;
    return {
      sessionId: `${runTag}-${counter.toString(36)}`,
      phoneNumber: `+2547${String((base + counter) % 10 ** PHONE_DIGITS).padStart(PHONE_DIGITS, '0')}`,
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

/** The hops of a flow as load steps; `check` false gives the floor the same requests without the screen checks. */
export function sessionSteps(
  flow: SessionFlow,
  nextIdentity: () => { sessionId: string; phoneNumber: string },
  check: boolean,
): Step[] {
  const inputs: string[] = [];
  return flow.hops.map((hop, index) => {
    inputs.push(hop.input);
    const text = cumulativeText(inputs);
    return {
      method: 'POST',
      path: '/api/ussd',
      headers: { 'content-type': 'application/json' },
      prepare:
        index === 0
          ? (context: StepContext) => {
              const identity = nextIdentity();
              context.sessionId = identity.sessionId;
              context.phoneNumber = identity.phoneNumber;
            }
          : undefined,
      body: (context: StepContext) =>
        JSON.stringify({
          sessionId: context.sessionId,
          serviceCode: SERVICE_CODE,
          phoneNumber: context.phoneNumber,
          text,
        }),
      expect: check
        ? screenCheck(hop)
        : (body) => (body.startsWith('CON ') ? undefined : `floor answered ${body.slice(0, 60)}`),
    };
  });
}
