import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { Client } from 'pg';
import { Browser, chromium, Page } from 'playwright-core';
import { GSM7_SCREEN_LIMIT, screenCost } from '../src/menus/screen-text';
import { Backing, createBacking, startApp } from './ussd-test-kit';

/**
 * Debian's Chromium, or the browser CHROMIUM_PATH names; playwright-core downloads no browser. `npm test` and
 * `test:e2e` install it first when it is missing (scripts/require-tools.mjs).
 */
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
];
// Every run takes the screenshot; the README's copy is refreshed only on request, so that a test run leaves the work
// tree clean: UPDATE_SCREENSHOTS=1 npx jest --selectProjects e2e --testPathPatterns ussd-simulator
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS
  ? join(__dirname, '..', '..', '..', 'docs', 'images', 'ussd-simulator.png')
  : join(tmpdir(), `ussd-simulator-${process.pid}.png`);

jest.setTimeout(120_000);

let backing: Backing;

beforeAll(async () => {
  backing = await createBacking('ussd-simulator');
});

afterAll(async () => {
  await backing?.cleanup();
});

describe('GET /simulator over HTTP', () => {
  it('does not exist without SIMULATOR_ENABLED: the 404 of any unknown path', async () => {
    const { app } = await startApp(backing.env());
    try {
      const simulator = await app.inject({ method: 'GET', url: '/simulator' });
      const unknown = await app.inject({ method: 'GET', url: '/simulatox' });
      expect(simulator.statusCode).toBe(404);
      expect(simulator.json()).toEqual({ ...unknown.json<object>(), message: 'Cannot GET /simulator' });
    } finally {
      await app.close();
    }
  });

  it('serves one self-contained page: its inline style and script admitted by hash, nothing else loadable', async () => {
    const { app } = await startApp(backing.env({ SIMULATOR_ENABLED: 'true' }));
    try {
      const response = await app.inject({ method: 'GET', url: '/simulator' });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.headers['cache-control']).toBe('no-store');
      const html = response.body;
      const inline = (tag: string): string => new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(html)![1]!;
      const hash = (text: string): string => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
      expect(response.headers['content-security-policy']).toBe(
        [
          "default-src 'none'",
          `script-src ${hash(inline('script'))}`,
          `style-src ${hash(inline('style'))}`,
          "connect-src 'self'",
          "base-uri 'none'",
          "form-action 'none'",
          "frame-ancestors 'none'",
        ].join('; '),
      );
      // No asset of any kind: no src or href attribute, no url() in the style, no import in the script.
      expect(html).not.toMatch(/\s(src|href)=/i);
      expect(inline('style')).not.toMatch(/url\(|@import/);
      expect(inline('script')).not.toMatch(/\bimport\b|https?:/);
    } finally {
      await app.close();
    }
  });
});

describe('the simulator in a browser (Chromium)', () => {
  let app: NestFastifyApplication;
  let browser: Browser;
  let page: Page;
  let origin: string;
  const sessionRequests: string[] = [];
  const foreignRequests: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    ({ app } = await startApp(backing.env({ SIMULATOR_ENABLED: 'true' })));
    await app.listen(0, '127.0.0.1');
    origin = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1100, height: 780 } });
    page.on('request', (request) => {
      if (!request.url().startsWith(`${origin}/`)) foreignRequests.push(request.url());
      if (request.url() === `${origin}/api/ussd`) sessionRequests.push(request.postData() ?? '');
    });
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${origin}/simulator`);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  async function query<Row extends Record<string, unknown>>(
    sql: string,
    values: unknown[],
  ): Promise<{ rows: Row[] }> {
    const db = new Client({ connectionString: backing.database.url });
    await db.connect();
    try {
      return await db.query<Row>(sql, values);
    } finally {
      await db.end();
    }
  }

  afterEach(() => {
    // A CSP refusal (an inline part whose hash does not match, an asset) shows up as a console error.
    expect(consoleErrors).toEqual([]);
    expect(foreignRequests).toEqual([]);
  });

  const transcriptLength = (): Promise<number> => page.locator('#transcript li').count();

  /** Waits for the page to have shown `hops` answers and to be idle again (every button back to its state). */
  async function settled(hops: number): Promise<void> {
    // Locators only: a predicate evaluated in the page would be refused by the page's own CSP (no eval).
    await page
      .locator('#transcript li')
      .nth(hops - 1)
      .waitFor();
    await page.locator('#dial:not([disabled])').waitFor();
    expect(await transcriptLength()).toBe(hops);
  }

  /** What the handset shows, and what its meter says, checked against the server's own measure of that text. */
  async function screen(): Promise<{ kind: string; text: string }> {
    const text = (await page.textContent('#screen-text')) ?? '';
    const data = (name: string): Promise<string | null> => page.getAttribute('#meter', `data-${name}`);
    const meter = {
      kind: await data('kind'),
      encoding: await data('encoding'),
      used: await data('used'),
      limit: await data('limit'),
    };
    const { used, limit } = screenCost(text);
    expect(meter).toEqual({
      kind: meter.kind,
      encoding: limit === GSM7_SCREEN_LIMIT ? 'GSM-7' : 'UCS-2',
      used: String(used),
      limit: String(limit),
    });
    expect(await page.textContent('#meter')).toBe(`${meter.kind} · ${meter.encoding} · ${used}/${limit}`);
    return { kind: meter.kind!, text };
  }

  async function dial(): Promise<{ kind: string; text: string }> {
    await page.click('#dial');
    await settled(1);
    return screen();
  }

  async function reply(input: string): Promise<{ kind: string; text: string }> {
    const before = await transcriptLength();
    await page.fill('#reply', input);
    await page.click('#send');
    await settled(before + 1);
    return screen();
  }

  it('dials, creates an account, then logs in with it, orders fuel, confirms with the PIN and shows the order number', async () => {
    sessionRequests.length = 0;
    await page.fill('#phone-number', '+254711000222');
    expect(await dial()).toEqual({
      kind: 'CON',
      text: 'Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n3. Language\n*. Exit',
    });
    expect((await reply('1')).text).toMatch(/^Know More\n1\. About this service/);
    expect((await reply('2')).text).toMatch(/^Pricing\n/);
    expect((await reply('00')).text).toMatch(/^Welcome to Clean Cooking\n/);
    expect((await reply('2')).text).toMatch(/^Account Menu\n/);
    expect((await reply('2')).text).toMatch(/^Enter your full name/);
    expect((await reply('Wanjiku Kamau')).text).toMatch(/^Enter your e-mail address/);
    expect((await reply('00')).text).toMatch(/^Choose a 5-digit PIN/);
    // A screen that asks for a PIN takes it in a masked field, as a handset does.
    expect(await page.getAttribute('#reply', 'type')).toBe('password');
    expect((await reply('47213')).text).toMatch(/^Enter the same PIN again/);
    const created = await reply('47213');
    expect(created.kind).toBe('END');
    const customerId = /Your Customer ID is (C[0-9A-F]{8})\./.exec(created.text)?.[1];
    expect(customerId).toBeDefined();

    // The page sent what an aggregator sends: form fields, `text` cumulative from "" on.
    const sent = sessionRequests.map((body) => Object.fromEntries(new URLSearchParams(body)));
    expect(sent.map((fields) => fields.text)).toEqual([
      '',
      '1',
      '1*2',
      '1*2*00',
      '1*2*00*2',
      '1*2*00*2*2',
      '1*2*00*2*2*Wanjiku Kamau',
      '1*2*00*2*2*Wanjiku Kamau*00',
      '1*2*00*2*2*Wanjiku Kamau*00*47213',
      '1*2*00*2*2*Wanjiku Kamau*00*47213*47213',
    ]);
    expect(
      new Set(
        sent.map((fields) =>
          JSON.stringify([fields.sessionId, fields.serviceCode, fields.phoneNumber, fields.networkCode]),
        ),
      ).size,
    ).toBe(1);
    expect(sent[0]).toMatchObject({
      sessionId: expect.stringMatching(/^SIM_[0-9a-f]{16}$/),
      serviceCode: '*384#',
      phoneNumber: '+254711000222',
    });

    // The ended session takes no more replies; the account really exists; the aggregator's session-end
    // notification went out as Africa's Talking sends it, and was kept without its input.
    expect(await page.isDisabled('#send')).toBe(true);
    // The transcript and the session's text show each PIN entry masked; the requests carried them as typed.
    const transcript = await page.locator('#transcript li').allTextContents();
    expect(transcript.map((item) => item.split('\n')[0])).toEqual([
      'text=""',
      'text="1"',
      'text="1*2"',
      'text="1*2*00"',
      'text="1*2*00*2"',
      'text="1*2*00*2*2"',
      'text="1*2*00*2*2*Wanjiku Kamau"',
      'text="1*2*00*2*2*Wanjiku Kamau*00"',
      'text="1*2*00*2*2*Wanjiku Kamau*00*•••••"',
      'text="1*2*00*2*2*Wanjiku Kamau*00*•••••*•••••"',
    ]);
    expect(await page.textContent('#cumulative')).toBe('"1*2*00*2*2*Wanjiku Kamau*00*•••••*•••••"');
    expect(await page.textContent('body')).not.toContain('47213');
    expect(await page.textContent('#notified')).toBe('Success → HTTP 200 {"status":"recorded"}');
    const { rows } = await query<{ full_name: string }>(
      'SELECT full_name FROM ussd_accounts WHERE customer_id = $1',
      [customerId],
    );
    expect(rows).toEqual([{ full_name: 'Wanjiku Kamau' }]);
    const events = await query(
      'SELECT status, hops_count, session_closed, last_app_response FROM ussd_session_events WHERE session_id = $1',
      [sent[0]!.sessionId],
    );
    expect(events.rows).toEqual([
      { status: 'Success', hops_count: 10, session_closed: false, last_app_response: `END ${created.text}` },
    ]);

    // A second session with the new account: log in, order two 10 kg bags of pellets, confirm with the PIN.
    sessionRequests.length = 0;
    expect((await dial()).text).toMatch(/^Welcome to Clean Cooking\n/);
    expect((await reply('2')).text).toMatch(/^Account Menu\n/);
    expect((await reply('1')).text).toMatch(/^Enter your Customer ID/);
    await reply(customerId!);
    expect((await reply('47213')).text).toMatch(/^Welcome, Wanjiku/);
    expect((await reply('4')).text).toBe(
      'Order fuel\n1. Pellets 10 kg: KES 250\n2. Pellets 25 kg: KES 600\n3. Briquettes 10 kg: KES 180\n0. Back\n00. Main menu\n*. Exit',
    );
    await reply('1');
    await reply('2');
    expect(await reply('Kibera market')).toEqual({
      kind: 'CON',
      text: '2 x Pellets 10 kg\nTotal: KES 500\nTo: Kibera market\nEnter your PIN to confirm\n0. Back\n00. Main menu\n*. Exit',
    });
    const placed = await reply('47213');
    expect(placed.kind).toBe('END');
    const orderNumber = /^Order (F\d{6}) placed: KES 500\. We will call you before delivery\.$/.exec(
      placed.text,
    )?.[1];
    expect(orderNumber).toBeDefined();
    expect(new URLSearchParams(sessionRequests.at(-1)).get('text')).toBe(
      `2*1*${customerId}*47213*4*1*2*Kibera market*47213`,
    );
    expect((await page.locator('#transcript li').allTextContents()).at(-1)!.split('\n')[0]).toBe(
      `text="2*1*${customerId}*•••••*4*1*2*Kibera market*•••••"`,
    );
    expect(await page.textContent('body')).not.toContain('47213');
    expect(await page.isDisabled('#send')).toBe(true);
    expect(await page.textContent('#notified')).toBe('Success → HTTP 200 {"status":"recorded"}');
    const orders = await query(
      `SELECT o.id, o.product_code, o.quantity, o.total_minor, o.delivery_point, o.status
         FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id WHERE a.customer_id = $1`,
      [customerId],
    );
    expect(orders.rows).toEqual([
      {
        id: String(Number(orderNumber!.slice(1))),
        product_code: 'pellets-10kg',
        quantity: 2,
        total_minor: 50_000,
        delivery_point: 'Kibera market',
        status: 'placed',
      },
    ]);
    mkdirSync(join(SCREENSHOT, '..'), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });
  });

  it('replays a scripted session in a new session, one hop per line, and stops at the END', async () => {
    sessionRequests.length = 0;
    await page.fill('#script', '1\n3\n*\n1\n');
    await page.click('#replay');
    await settled(4);
    expect(await screen()).toEqual({ kind: 'END', text: 'Thank you for using our service. Goodbye!' });
    const sent = sessionRequests.map((body) => Object.fromEntries(new URLSearchParams(body)));
    expect(sent.map((fields) => fields.text)).toEqual(['', '1', '1*3', '1*3**']);
    expect(new Set(sent.map((fields) => fields.sessionId)).size).toBe(1);
    const items = await page.locator('#transcript li').allTextContents();
    expect(items[2]).toMatch(/^text="1\*3"\n← CON · GSM-7 · \d+\/182\nDelivery\n/);
  });

  it('hangs up: the session-end notification says Incomplete and closes the session on the server', async () => {
    sessionRequests.length = 0;
    await dial();
    await reply('1');
    await page.click('#hangup');
    await page.locator('#phone[data-state="ended"]').waitFor();
    await page.locator('#dial:not([disabled])').waitFor();
    expect(await page.textContent('#notified')).toBe('Incomplete → HTTP 200 {"status":"recorded"}');
    const sessionId = new URLSearchParams(sessionRequests[0]).get('sessionId');
    const events = await query(
      'SELECT status, hops_count, session_closed FROM ussd_session_events WHERE session_id = $1',
      [sessionId],
    );
    expect(events.rows).toEqual([{ status: 'Incomplete', hops_count: 2, session_closed: true }]);
  });

  it("copies the session's inputs into the script", async () => {
    await page.click('#use-inputs');
    expect(await page.inputValue('#script')).toBe('1');
  });
});
