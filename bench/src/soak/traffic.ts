import { setTimeout as sleep } from 'node:timers/promises';
import { AnswerTally, protocolKind, registryKind, ussdKind } from './answers';

/** Longer than any documented bound on an answer (hop budget, query timeout, upstream deadline): past it, a hang. */
const ANSWER_TIMEOUT_MS = 20_000;
const SERVICE_CODE = '*384#';
const PIN = '48613';

interface Answer {
  status: number;
  body: string;
}

async function request(url: string, init: RequestInit = {}): Promise<Answer> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
    return { status: response.status, body: await response.text() };
  } catch (error) {
    // No answer at all: a dropped connection or a hang past every documented bound.
    return { status: 0, body: `no answer: ${(error as Error).message}` };
  }
}

/** Letters only (account names allow letters, spaces, - and '): a name nobody else in the run has. */
function uniqueWord(counter: number): string {
  let word = '';
  let rest = counter;
  do {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return `Soak${word}`;
}

/** What subscribers were told and what they sent, checked against PostgreSQL at the end. */
export interface UssdLedger {
  /** Accounts a subscriber was told were created: Customer ID → the name given. */
  accounts: Map<string, { name: string; phone: string }>;
  /** Orders a subscriber was told were placed: order number → who placed it, where to. */
  orders: Map<string, { customerId: string; phone: string; deliveryPoint: string }>;
  /** Delivery points of every confirmation sent (one per session): an order may exist for these and no others. */
  confirmationsSent: Set<string>;
  /** Screens that showed another subscriber's name. */
  foreignData: string[];
}

export function emptyLedger(): UssdLedger {
  return { accounts: new Map(), orders: new Map(), confirmationsSent: new Set(), foreignData: [] };
}

interface UssdStep {
  input: string;
  /** The screen this hop must answer; anything else ends the session. */
  expect: (body: string) => boolean;
}

/**
 * One subscriber dialling session after session: information screens, account creations, log-ins with fuel orders
 * confirmed by PIN. A session ends at its first unexpected screen, as a subscriber hangs up on "temporarily
 * unavailable"; the next session is a new dial.
 */
export async function ussdSubscriber(options: {
  baseUrl: string;
  subscriber: number;
  running: () => boolean;
  tally: AnswerTally;
  ledger: UssdLedger;
  thinkMs: number;
}): Promise<void> {
  const { baseUrl, subscriber, running, tally, ledger } = options;
  const phone = `+2547${String(10_000_000 + subscriber * 1_000).padStart(8, '0')}`;
  const mine: { customerId: string; name: string }[] = [];
  let sessions = 0;

  const play = async (steps: UssdStep[], onLast?: (body: string) => void): Promise<void> => {
    sessions += 1;
    const sessionId = `soak-${subscriber}-${sessions}-${Date.now().toString(36)}`;
    const inputs: string[] = [];
    for (const [index, step] of steps.entries()) {
      if (!running()) return;
      inputs.push(step.input);
      const text = inputs.filter((input, at) => at > 0 || input !== '').join('*');
      const answer = await request(`${baseUrl}/api/ussd`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sessionId, serviceCode: SERVICE_CODE, phoneNumber: phone, text }),
      });
      const expected = answer.status === 200 && step.expect(answer.body);
      tally.add(
        'ussd',
        ussdKind(answer.status, answer.body, expected),
        `${answer.status} after "${text.replaceAll(PIN, '*****')}": ${answer.body.slice(0, 120)}`,
      );
      if (!expected) return;
      if (index === steps.length - 1) onLast?.(answer.body);
      await sleep(options.thinkMs);
    }
  };

  const con = (contains?: string) => (body: string) =>
    body.startsWith('CON ') && (contains === undefined || body.includes(contains));

  while (running()) {
    const choice = mine.length === 0 ? 1 : sessions % 4;
    if (choice === 0) {
      await play([
        { input: '', expect: con('Know More') },
        { input: '1', expect: con('Pricing') },
        { input: '2', expect: con() },
        { input: '*', expect: (body) => body.startsWith('END ') },
      ]);
    } else if (choice === 1) {
      const name = `${uniqueWord(subscriber * 10_000 + sessions)} Wanjiku`;
      await play(
        [
          { input: '', expect: con('Account') },
          { input: '2', expect: con('Create account') },
          { input: '2', expect: con('full name') },
          { input: name, expect: con('e-mail') },
          { input: '00', expect: con('PIN') },
          { input: PIN, expect: con('same PIN') },
          { input: PIN, expect: (body) => /^END .*Customer ID is C[0-9A-F]{8}\b/.test(body) },
        ],
        (body) => {
          const customerId = /Customer ID is (C[0-9A-F]{8})\b/.exec(body)![1]!;
          ledger.accounts.set(customerId, { name, phone });
          mine.push({ customerId, name });
        },
      );
    } else {
      const account = mine[sessions % mine.length]!;
      const firstName = account.name.split(' ')[0]!;
      const deliveryPoint = `D${subscriber}x${sessions}`;
      await play(
        [
          { input: '', expect: con('Account') },
          { input: '2', expect: con('Log in') },
          { input: '1', expect: con('Customer ID') },
          { input: account.customerId, expect: con('PIN') },
          {
            input: PIN,
            expect: (body) => {
              const welcome = /Welcome, ([^\s.!,]+)/.exec(body);
              if (welcome && welcome[1] !== firstName)
                ledger.foreignData.push(`${account.customerId}: ${body}`);
              return body.startsWith('CON ') && welcome?.[1] === firstName;
            },
          },
          { input: '4', expect: con('Pellets') },
          { input: '1', expect: con() },
          { input: '2', expect: con() },
          { input: deliveryPoint, expect: con('PIN') },
          {
            input: PIN,
            expect: (body) => {
              ledger.confirmationsSent.add(deliveryPoint);
              return /^END Order F\d{6,} placed/.test(body);
            },
          },
        ],
        (body) => {
          const orderNumber = /Order (F\d{6,}) placed/.exec(body)![1]!;
          ledger.orders.set(orderNumber, { customerId: account.customerId, phone, deliveryPoint });
        },
      );
    }
  }
}

/** Where each registry sync stands: every page sequence is checked for gaps and duplicates. */
export interface RegistrySyncResult {
  collection: string;
  pages: number;
  rows: number;
  totalCount: number;
  duplicates: number;
  complete: boolean;
}

interface Page {
  data: unknown[];
  page_info: { next_cursor: string | null; has_more: boolean };
  total_count?: number;
}

/**
 * A registry integrator: syncs whole collections by following `next_cursor` (a 503 is retried with the same cursor
 * after a second, as the contract asks), and reads aggregates between syncs.
 */
export async function registryClient(options: {
  baseUrl: string;
  authorization: string;
  collections: readonly string[];
  aggregates: readonly string[];
  running: () => boolean;
  tally: AnswerTally;
  syncs: RegistrySyncResult[];
  client: number;
  pauseMs: number;
}): Promise<void> {
  const { baseUrl, authorization, running, tally } = options;
  const headers = { authorization };
  let round = options.client;
  while (running()) {
    round += 1;
    const collection = options.collections[round % options.collections.length]!;
    const seen = new Set<string>();
    let duplicates = 0;
    let cursor: string | null = null;
    let totalCount = -1;
    let pages = 0;
    let finished = false;
    while (running()) {
      const url = `${baseUrl}/v1/${collection}/list?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
      const answer = await request(url, { headers });
      let page: Page | undefined;
      if (answer.status === 200) {
        try {
          page = JSON.parse(answer.body) as Page;
        } catch {
          page = undefined;
        }
      }
      const expected = page !== undefined && Array.isArray(page.data);
      const kind = registryKind(answer.status, answer.body, expected);
      tally.add(
        'registry',
        kind,
        `${answer.status} ${url.slice(baseUrl.length)} ${answer.body.slice(0, 120)}`,
      );
      if (!page || !expected) {
        if (kind === 'undocumented') break;
        await sleep(1_000);
        continue;
      }
      pages += 1;
      if (cursor === null) totalCount = page.total_count ?? -1;
      for (const row of page.data) {
        const key = JSON.stringify(row);
        if (seen.has(key)) duplicates += 1;
        seen.add(key);
      }
      cursor = page.page_info.next_cursor;
      if (cursor === null) {
        finished = true;
        break;
      }
    }
    if (finished) {
      options.syncs.push({
        collection,
        pages,
        rows: seen.size,
        totalCount,
        duplicates,
        complete: seen.size === totalCount && duplicates === 0,
      });
    }
    // An integrator syncs, then reads a few aggregates, then waits for its next round.
    await sleep(options.pauseMs);
    for (const path of options.aggregates) {
      if (!running()) break;
      const answer = await request(`${baseUrl}/v1/${path}`, { headers });
      tally.add(
        'registry',
        registryKind(answer.status, answer.body, answer.body.startsWith('{')),
        `${answer.status} ${path}`,
      );
    }
  }
}

/** A dashboard polling the same routes in turn, once a second per widget. */
export async function protocolDashboard(options: {
  baseUrl: string;
  routes: readonly string[];
  running: () => boolean;
  tally: AnswerTally;
  pauseMs: number;
}): Promise<void> {
  while (options.running()) {
    for (const route of options.routes) {
      if (!options.running()) return;
      const answer = await request(`${options.baseUrl}${route}`);
      const expected = answer.status === 200 && answer.body.startsWith('{');
      options.tally.add(
        'protocol',
        protocolKind(answer.status, answer.body, expected),
        `${answer.status} ${route} ${answer.body.slice(0, 120)}`,
      );
      await sleep(options.pauseMs);
    }
  }
}
