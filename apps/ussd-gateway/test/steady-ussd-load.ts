import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { createAccount, post, SERVICE_CODE, UNAVAILABLE } from './ussd-test-kit';

const PIN = '47213';

/** Letters only (account names allow letters, spaces, - and '): a first name nobody else in the run has. */
function uniqueFirstName(index: number): string {
  let word = '';
  let rest = index;
  do {
    word = String.fromCharCode(97 + (rest % 26)) + word;
    rest = Math.floor(rest / 26);
  } while (rest > 0);
  return `Load${word}`;
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
  };
  private running = false;
  private loops: Promise<void>[] = [];
  private waiters: { target: number; resolve: () => void }[] = [];
  /** The session each subscriber is in now. */
  private readonly current = new Map<number, string>();

  private constructor(
    private readonly app: NestFastifyApplication,
    private readonly subscribers: Subscriber[],
    private readonly label: string,
  ) {}

  /** Creates one account per subscriber through the menus (before any fault). */
  static async prepare(app: NestFastifyApplication, count: number, label: string): Promise<SteadyUssdLoad> {
    const subscribers: Subscriber[] = [];
    for (let index = 0; index < count; index += 1) {
      const firstName = uniqueFirstName(index);
      const { customerId, handset } = await createAccount(app, { name: `${firstName} Tester`, pin: PIN });
      subscribers.push({ phoneNumber: handset.phoneNumber, customerId, firstName });
    }
    return new SteadyUssdLoad(app, subscribers, label);
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

  /** Resolves once `count` more sessions have run to their expected end. */
  sessionsCompleted(count: number): Promise<void> {
    const target = this.ledger.completedAt.length + count;
    return new Promise((resolve) => this.waiters.push({ target, resolve }));
  }

  private completed(): void {
    this.ledger.completedAt.push(Date.now());
    const done = this.ledger.completedAt.length;
    this.waiters = this.waiters.filter((waiter) =>
      waiter.target <= done ? (waiter.resolve(), false) : true,
    );
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
      const steps: Step[] =
        round % 3 === 2
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
      await this.playSession(subscriber, steps, deliveryPoint, sessionId);
    }
  }

  private async playSession(
    subscriber: Subscriber,
    steps: Step[],
    deliveryPoint: string,
    sessionId: string,
  ): Promise<void> {
    const inputs: string[] = [];
    for (const [at, step] of steps.entries()) {
      if (!this.running) return;
      inputs.push(step.input);
      const text = inputs.filter((input, position) => position > 0 || input !== '').join('*');
      if (step.input === PIN && at === steps.length - 1) this.ledger.confirmationsSent.add(deliveryPoint);
      const reply = await post(this.app, {
        sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: subscriber.phoneNumber,
        text,
      });
      this.ledger.answers += 1;
      const welcome = /Welcome, (\S+?)[.!,]?\s/.exec(reply.body);
      if (welcome && welcome[1] !== subscriber.firstName && !reply.body.startsWith('CON Welcome to')) {
        this.ledger.foreignData.push(`${subscriber.customerId}: ${reply.body}`);
      }
      if (reply.status === 200 && step.expect(reply.body)) {
        if (at === steps.length - 1) {
          const order = /Order (F\d{6,}) placed/.exec(reply.body);
          if (order) this.ledger.ordersTold.set(order[1]!, deliveryPoint);
          this.completed();
        }
        continue;
      }
      if (reply.status === 200 && reply.body === UNAVAILABLE) this.ledger.unavailable += 1;
      else
        this.ledger.wrongScreens.push(
          `${reply.status} after "${text.replace(/\d{5}/g, '*****')}": ${reply.body}`,
        );
      return;
    }
  }
}
