import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createAccount, post, SERVICE_CODE, UNAVAILABLE } from './ussd-test-kit';

const PIN = '47213';

/** Letters only (account names allow letters, spaces, - and '): `index` written in the letters a–z. */
function letters(index: number): string {
  let word = '';
  let rest = index;
  do {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return word;
}

/** A first name nobody else in the run has. */
function uniqueFirstName(index: number): string {
  return `Load${letters(index)}`;
}

/** What a session of the load does: an information walk, a log-in and fuel order, or an account creation. */
export type SessionKind = 'info' | 'order' | 'account';

export interface SteadyUssdLoadOptions {
  /** Every fourth session of each subscriber creates a new account (on the subscriber's phone). */
  accountCreations?: boolean;
  /**
   * A hop answered "unavailable", or not answered within `hopBoundMs`, is sent once more with the same text, as an
   * aggregator may; the session goes on if that answer is the expected screen.
   */
  retryOnce?: boolean;
  /** Answers slower than this are recorded in `slowHops` (a hang past the hop budget). */
  hopBoundMs?: number;
}

/** The last hop of an order or account creation that never got its expected answer, for a later retry. */
export interface CutWrite {
  kind: 'order' | 'account';
  sessionId: string;
  phoneNumber: string;
  text: string;
  /** The order's delivery point or the account's full name. */
  key: string;
}

interface Subscriber {
  phoneNumber: string;
  customerId: string;
  firstName: string;
}

interface Step {
  input: string;
  expect: (body: string) => boolean;
}

/** What the subscribers saw and were told, for the checks after a fault. */
export interface LoadLedger {
  /** Answers that were neither the expected screen nor the documented "temporarily unavailable". */
  wrongScreens: string[];
  /** Screens that named another subscriber. */
  foreignData: string[];
  /** Order number → the delivery point of the session that was told it. */
  ordersTold: Map<string, string>;
  /** Delivery points of every confirmation sent: one per session, so an order for any other point is a phantom. */
  confirmationsSent: Set<string>;
  answers: number;
  unavailable: number;
  /** Sessions that ran to their expected last screen, each with the time it ended. */
  completedAt: number[];
  /** Customer ID → the full name of the session that was told it. */
  accountsTold: Map<string, string>;
  /** Full names of every account confirmation sent (each name belongs to one session). */
  creationsSent: Set<string>;
  /** Hops sent again after "unavailable" or no answer in time (`retryOnce`), and those the retry served. */
  retries: number;
  servedOnRetry: number;
  /** Answers that took longer than `hopBoundMs`. */
  slowHops: string[];
  /** Order and account confirmations whose session ended on "unavailable". */
  cutWrites: CutWrite[];
}

/**
 * Subscribers playing whole sessions back to back against the app (a log-in, a fuel order confirmed with the PIN,
 * and an information walk), each on its own phone and account, while a test breaks what is under them. A session
 * ends at the first answer that is not the expected screen: "temporarily unavailable" is the documented one, and
 * the subscriber dials again; anything else is recorded as a wrong screen.
 */
export class SteadyUssdLoad {
  readonly ledger: LoadLedger = {
    wrongScreens: [],
    foreignData: [],
    ordersTold: new Map(),
    confirmationsSent: new Set(),
    answers: 0,
    unavailable: 0,
    completedAt: [],
    accountsTold: new Map(),
    creationsSent: new Set(),
    retries: 0,
    servedOnRetry: 0,
    slowHops: [],
    cutWrites: [],
  };
  private running = false;
  private loops: Promise<void>[] = [];
  private waiters: { kind: SessionKind | undefined; target: number; resolve: () => void }[] = [];
  private unavailableWaiters: { target: number; resolve: () => void }[] = [];
  private readonly completedByKind: Record<SessionKind, number> = { info: 0, order: 0, account: 0 };
  /** The session each subscriber is in now. */
  private readonly current = new Map<number, string>();

  private constructor(
    private readonly app: NestFastifyApplication,
    private readonly subscribers: Subscriber[],
    private readonly label: string,
    private readonly options: SteadyUssdLoadOptions,
  ) {}

  /**
   * Creates one account per subscriber through the menus (before any fault). `label` is letters only: it starts
   * the delivery points and the names of the accounts the load creates.
   */
  static async prepare(
    app: NestFastifyApplication,
    count: number,
    label: string,
    options: SteadyUssdLoadOptions = {},
  ): Promise<SteadyUssdLoad> {
    const subscribers: Subscriber[] = [];
    for (let index = 0; index < count; index += 1) {
      const firstName = uniqueFirstName(index);
      const { customerId, handset } = await createAccount(app, { name: `${firstName} Tester`, pin: PIN });
      subscribers.push({ phoneNumber: handset.phoneNumber, customerId, firstName });
    }
    return new SteadyUssdLoad(app, subscribers, label, options);
  }

  start(): void {
    this.running = true;
    this.loops = this.subscribers.map((subscriber, index) => this.subscriberLoop(subscriber, index));
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** The sessions open at this moment, one per subscriber. */
  openSessionIds(): string[] {
    return [...this.current.values()];
  }

  /** Resolves once `count` more sessions (of `kind`, if given) have run to their expected end. */
  sessionsCompleted(count: number, kind?: SessionKind): Promise<void> {
    const target = this.done(kind) + count;
    return new Promise((resolve) => this.waiters.push({ kind, target, resolve }));
  }

  /** Resolves once `count` more hops have answered "unavailable". */
  unavailableAnswers(count: number): Promise<void> {
    const target = this.ledger.unavailable + count;
    return new Promise((resolve) => this.unavailableWaiters.push({ target, resolve }));
  }

  private countUnavailable(): void {
    this.ledger.unavailable += 1;
    this.unavailableWaiters = this.unavailableWaiters.filter((waiter) =>
      waiter.target <= this.ledger.unavailable ? (waiter.resolve(), false) : true,
    );
  }

  private done(kind: SessionKind | undefined): number {
    return kind ? this.completedByKind[kind] : this.ledger.completedAt.length;
  }

  private completed(kind: SessionKind): void {
    this.ledger.completedAt.push(Date.now());
    this.completedByKind[kind] += 1;
    this.waiters = this.waiters.filter((waiter) =>
      waiter.target <= this.done(waiter.kind) ? (waiter.resolve(), false) : true,
    );
  }

  /** Accounts in the database against what subscribers were told and sent. */
  async checkAccounts(
    databaseUrl: string,
  ): Promise<{ missing: string[]; duplicated: string[]; phantom: string[]; told: number }> {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ customer_id: string; full_name: string }>(
        'SELECT customer_id, full_name FROM ussd_accounts WHERE full_name LIKE $1',
        [`${this.accountNamePrefix()}%`],
      );
      const byName = new Map<string, string[]>();
      for (const row of rows)
        byName.set(row.full_name, [...(byName.get(row.full_name) ?? []), row.customer_id]);
      return {
        told: this.ledger.accountsTold.size,
        missing: [...this.ledger.accountsTold]
          .filter(([customerId, name]) => !byName.get(name)?.includes(customerId))
          .map(([customerId]) => customerId),
        duplicated: [...byName].filter(([, ids]) => ids.length > 1).map(([name]) => name),
        phantom: [...byName.keys()].filter((name) => !this.ledger.creationsSent.has(name)),
      };
    } finally {
      await db.end();
    }
  }

  /**
   * The aggregator's late retry (the same text, in the same session) of every confirmation whose session ended on
   * "unavailable": each must now answer its order or account, the one already committed if the cut hop committed.
   * Call it after `stop()`, once the service is back.
   */
  async retryCutWrites(): Promise<number> {
    const cut = this.ledger.cutWrites.splice(0);
    for (const write of cut) {
      const reply = await post(this.app, {
        sessionId: write.sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: write.phoneNumber,
        text: write.text,
      });
      this.ledger.answers += 1;
      const told =
        write.kind === 'order'
          ? /^END Order (F\d{6,}) placed/.exec(reply.body)
          : /^END Account created\. Your Customer ID is (C[0-9A-F]{8})\./.exec(reply.body);
      if (reply.status === 200 && told) {
        if (write.kind === 'order') this.ledger.ordersTold.set(told[1]!, write.key);
        else this.ledger.accountsTold.set(told[1]!, write.key);
      } else {
        this.ledger.wrongScreens.push(
          `${reply.status} on the late retry of a cut ${write.kind}: ${reply.body}`,
        );
      }
    }
    return cut.length;
  }

  private accountNamePrefix(): string {
    return `New${this.label} `;
  }

  /** Orders in the database against what subscribers were told and sent. */
  async checkOrders(
    databaseUrl: string,
  ): Promise<{ missing: string[]; duplicated: string[]; phantom: string[]; told: number }> {
    const db = new Client({ connectionString: databaseUrl });
    await db.connect();
    try {
      const { rows } = await db.query<{ number: string; delivery_point: string }>(
        `SELECT 'F' || lpad(id::text, 6, '0') AS number, delivery_point FROM ussd_orders WHERE delivery_point LIKE $1`,
        [`${this.label}%`],
      );
      const byPoint = new Map<string, string[]>();
      for (const row of rows)
        byPoint.set(row.delivery_point, [...(byPoint.get(row.delivery_point) ?? []), row.number]);
      const numbers = new Set(rows.map((row) => row.number));
      return {
        told: this.ledger.ordersTold.size,
        missing: [...this.ledger.ordersTold]
          .filter(([number, point]) => !numbers.has(number) || !byPoint.get(point)?.includes(number))
          .map(([number]) => number),
        duplicated: [...byPoint]
          .filter(([, numbersOfPoint]) => numbersOfPoint.length > 1)
          .map(([point]) => point),
        phantom: [...byPoint.keys()].filter((point) => !this.ledger.confirmationsSent.has(point)),
      };
    } finally {
      await db.end();
    }
  }

  private async subscriberLoop(subscriber: Subscriber, index: number): Promise<void> {
    const con = (contains?: string) => (body: string) =>
      body.startsWith('CON ') && (contains === undefined || body.includes(contains));
    for (let round = 0; this.running; round += 1) {
      const deliveryPoint = `${this.label}${index}x${round}`;
      const fullName = `${this.accountNamePrefix()}${letters(index)} ${letters(round)}`;
      const kind: SessionKind =
        this.options.accountCreations && round % 4 === 3 ? 'account' : round % 3 === 2 ? 'info' : 'order';
      const steps: Step[] =
        kind === 'account'
          ? [
              { input: '', expect: con('Account') },
              { input: '2', expect: con('Create account') },
              { input: '2', expect: con('Enter your full name') },
              { input: fullName, expect: con('Enter your e-mail address') },
              { input: '00', expect: con('Choose a 5-digit PIN') },
              { input: PIN, expect: con('Enter the same PIN again') },
              {
                input: PIN,
                expect: (body) => /^END Account created\. Your Customer ID is C[0-9A-F]{8}\./.test(body),
              },
            ]
          : kind === 'info'
            ? [
                { input: '', expect: con('Know More') },
                { input: '1', expect: con('Pricing') },
                { input: '2', expect: con() },
                { input: '*', expect: (body) => body.startsWith('END ') },
              ]
            : [
                { input: '', expect: con('Account') },
                { input: '2', expect: con('Log in') },
                { input: '1', expect: con('Customer ID') },
                { input: subscriber.customerId, expect: con('PIN') },
                { input: PIN, expect: (body) => body.startsWith(`CON Welcome, ${subscriber.firstName}`) },
                { input: '4', expect: con('Pellets') },
                { input: '1', expect: con() },
                { input: '2', expect: con() },
                { input: deliveryPoint, expect: con('PIN') },
                { input: PIN, expect: (body) => /^END Order F\d{6,} placed/.test(body) },
              ];
      const sessionId = `${this.label}-${index}-${round}-${Date.now().toString(36)}`;
      this.current.set(index, sessionId);
      await this.playSession(
        subscriber,
        steps,
        kind,
        kind === 'account' ? fullName : deliveryPoint,
        sessionId,
      );
    }
  }

  private async playSession(
    subscriber: Subscriber,
    steps: Step[],
    kind: SessionKind,
    key: string,
    sessionId: string,
  ): Promise<void> {
    const inputs: string[] = [];
    for (const [at, step] of steps.entries()) {
      if (!this.running) return;
      inputs.push(step.input);
      const text = inputs.filter((input, position) => position > 0 || input !== '').join('*');
      const last = at === steps.length - 1;
      if (last && kind === 'order') this.ledger.confirmationsSent.add(key);
      if (last && kind === 'account') this.ledger.creationsSent.add(key);
      let reply = await this.hop(subscriber, sessionId, text);
      let served = reply.status === 200 && step.expect(reply.body);
      const unanswered = reply.body === UNAVAILABLE || reply.late;
      if (!served && unanswered && this.options.retryOnce) {
        if (reply.status === 200 && reply.body === UNAVAILABLE) this.countUnavailable();
        this.ledger.retries += 1;
        reply = await this.hop(subscriber, sessionId, text);
        served = reply.status === 200 && step.expect(reply.body);
        if (served) this.ledger.servedOnRetry += 1;
      }
      if (served) {
        if (last) {
          const order = /Order (F\d{6,}) placed/.exec(reply.body);
          if (order) this.ledger.ordersTold.set(order[1]!, key);
          const account = /Your Customer ID is (C[0-9A-F]{8})\./.exec(reply.body);
          if (account) this.ledger.accountsTold.set(account[1]!, key);
          this.completed(kind);
        }
        continue;
      }
      if (reply.status === 200 && reply.body === UNAVAILABLE) {
        this.countUnavailable();
        if (last && kind !== 'info')
          this.ledger.cutWrites.push({ kind, sessionId, phoneNumber: subscriber.phoneNumber, text, key });
      } else
        this.ledger.wrongScreens.push(
          `${reply.status} after "${text.replace(/\d{5}/g, '*****')}": ${reply.body}`,
        );
      return;
    }
  }

  /** One hop, checked for another subscriber's data and for an answer later than `hopBoundMs`. */
  private async hop(
    subscriber: Subscriber,
    sessionId: string,
    text: string,
  ): Promise<{ status: number; body: string; late: boolean }> {
    const started = Date.now();
    const reply = await post(this.app, {
      sessionId,
      serviceCode: SERVICE_CODE,
      phoneNumber: subscriber.phoneNumber,
      text,
    });
    const tookMs = Date.now() - started;
    this.ledger.answers += 1;
    const welcome = /Welcome, (\S+?)[.!,]?\s/.exec(reply.body);
    if (welcome && welcome[1] !== subscriber.firstName && !reply.body.startsWith('CON Welcome to')) {
      this.ledger.foreignData.push(`${subscriber.customerId}: ${reply.body}`);
    }
    const late = this.options.hopBoundMs !== undefined && tookMs > this.options.hopBoundMs;
    if (late)
      this.ledger.slowHops.push(`${tookMs} ms for "${text.replace(/\d{5}/g, '*****')}": ${reply.body}`);
    return { status: reply.status, body: reply.body, late };
  }
}
