import crypto from 'node:crypto';
import Redis from 'ioredis';
import { TEST_REDIS_URL } from '@dmrv/testing';
import {
  captureLogs,
  createAccount as createAccountIn,
  Handset,
  OPERATOR_TOKEN,
  post,
  SERVICE_CODE,
  startApp,
  useTestStack,
} from './ussd-test-kit';

const INVALID = 'END Invalid input. Please try again.';
const GOODBYE = 'END Thank you for using our service. Goodbye!';
const MAIN_MENU = 'CON Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n3. Language\n*. Exit';
const PIN = '47213';

const stack = useTestStack('ussd-flows', { PIN_LOCKOUT_SECONDS: '600', RATE_LIMIT_PER_IP: '100000' });

const createAccount = (name = 'Jane Wanjiku', email: string | null = null, pin = PIN) =>
  createAccountIn(stack.app, { name, email, pin });

const debug = (sessionId: string, token: string | undefined = OPERATOR_TOKEN) =>
  stack.app.inject({
    method: 'GET',
    url: `/api/ussd/debug/${encodeURIComponent(sessionId)}`,
    headers: token ? { 'x-operator-token': token } : {},
  });

describe('POST /api/ussd: the endpoint', () => {
  it('answers the dial with the main menu as text/plain CON', async () => {
    const reply = await new Handset(stack.app).repeat();
    expect(reply).toEqual({ status: 200, body: MAIN_MENU, contentType: 'text/plain; charset=utf-8' });
  });

  it('accepts form-encoded bodies with extra aggregator fields, all the way through a session', async () => {
    const handset = new Handset(stack.app);
    const form = { form: true };
    const dial = await post(
      stack.app,
      {
        sessionId: handset.sessionId,
        serviceCode: SERVICE_CODE,
        phoneNumber: handset.phoneNumber,
        text: '',
        networkCode: '63902',
      },
      form,
    );
    expect(dial.body).toBe(MAIN_MENU);
    expect(await handset.send('1', form)).toMatch(
      /^CON Know More\n1\. About this service\n2\. Pricing\n3\. Delivery\n/,
    );
    expect(await handset.send('3', form)).toMatch(/^CON Delivery\n/);
    expect(await handset.send('*', form)).toBe(GOODBYE);
  });

  it.each([
    ['sessionId over 100 characters', { sessionId: 'x'.repeat(101) }],
    ['missing sessionId', { sessionId: undefined }],
    ['serviceCode without #', { serviceCode: '*384' }],
    ['serviceCode with letters', { serviceCode: '*38a#' }],
    // Issue 32: the pattern repeats without end; 64 characters is the bound a session-end notification has too.
    ['serviceCode over 64 characters', { serviceCode: `*384${'*1'.repeat(30)}#` }],
    ['a 15 KB serviceCode', { serviceCode: `*384${'*123456'.repeat(2_100)}#` }],
    ['phone number not E.164', { phoneNumber: '0712345678' }],
    ['phone number too long', { phoneNumber: '+2547123456789012' }],
    ['text over 182 characters', { text: '1'.repeat(183) }],
    ['text that is not a string', { text: 5 }],
    ['text with a control character', { text: '1\u0000' }],
  ])('answers %s with the invalid-input text', async (_label, override) => {
    const body = {
      sessionId: 'valid-session-for-invalid-case',
      serviceCode: '*384*1#',
      phoneNumber: '+254712345678',
      text: '',
      ...override,
    };
    const reply = await post(stack.app, JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
    expect(reply).toMatchObject({ status: 200, body: INVALID });
  });

  it('answers malformed JSON, an unknown content type and an empty body with the invalid-input text', async () => {
    expect((await post(stack.app, '{"sessionId":')).body).toBe(INVALID);
    const plain = await stack.app.inject({
      method: 'POST',
      url: '/api/ussd',
      payload: 'hello',
      headers: { 'content-type': 'text/plain' },
    });
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toBe(INVALID);
    const empty = await stack.app.inject({
      method: 'POST',
      url: '/api/ussd',
      headers: { 'content-type': 'application/json' },
    });
    expect(empty.body).toBe(INVALID);
  });

  it.each([
    'null',
    '[]',
    '"hello"',
    '42',
    'true',
    '{"sessionId":["a"],"serviceCode":"*384#","phoneNumber":"+254712345678","text":""}',
  ])('answers the JSON body %s with the invalid-input text', async (payload) => {
    expect(await post(stack.app, payload)).toEqual({
      status: 200,
      body: INVALID,
      contentType: 'text/plain; charset=utf-8',
    });
  });

  it('measures lengths in characters, a surrogate pair counting once', async () => {
    const valid = {
      sessionId: 'length-in-characters',
      serviceCode: SERVICE_CODE,
      phoneNumber: '+254712345678',
    };
    expect((await post(stack.app, { ...valid, text: '😀'.repeat(182) })).body).toMatch(
      /^CON Invalid choice\. Try again\.\n/,
    );
    expect(
      (await post(stack.app, { ...valid, sessionId: 'length-in-characters-2', text: '😀'.repeat(183) })).body,
    ).toBe(INVALID);
    expect((await post(stack.app, { ...valid, sessionId: '😀'.repeat(101), text: '' })).body).toBe(INVALID);
  });

  it('answers a form body repeating a field with the invalid-input text', async () => {
    const reply = await post(
      stack.app,
      'sessionId=a&sessionId=b&serviceCode=*384%23&phoneNumber=%2B254712345678&text=',
      { form: true },
    );
    expect(reply).toEqual({ status: 200, body: INVALID, contentType: 'text/plain; charset=utf-8' });
  });

  it('refuses a session id replayed from another phone number', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const reply = await post(stack.app, {
      sessionId: handset.sessionId,
      serviceCode: SERVICE_CODE,
      phoneNumber: '+254799999999',
      text: '1',
    });
    expect(reply.body).toBe(INVALID);
  });
});

describe('Know More', () => {
  it.each([
    ['1', 'About this service', 'clean cookstoves'],
    ['2', 'Pricing', 'Stove'],
    ['3', 'Delivery', 'deliver'],
  ])('option %s shows %s', async (choice, title, phrase) => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.send('1');
    const screen = await handset.send(choice);
    expect(screen.startsWith(`CON ${title}\n`)).toBe(true);
    expect(screen).toContain(phrase);
    expect(screen).toMatch(/0\. Back\n00\. Main menu\n\*\. Exit$/);
    expect(await handset.send('0')).toMatch(/^CON Know More\n/);
  });
});

describe('navigation', () => {
  it('goes back with 0 and to the main menu with 00, hints on an invalid choice', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    expect(await handset.send('2')).toMatch(/^CON Account Menu\n1\. Log in\n2\. Create account\n0\. Back/);
    expect(await handset.send('1')).toMatch(/^CON Enter your Customer ID/);
    expect(await handset.send('0')).toMatch(/^CON Account Menu/);
    expect(await handset.send('0')).toBe(MAIN_MENU);
    expect(await handset.send('7')).toBe(`CON Invalid choice. Try again.\n${MAIN_MENU.slice(4)}`);
    await handset.sendAll('2', '2', 'Jane');
    expect(await handset.send('0')).toMatch(/^CON Enter your full name/);
    expect(await handset.send('00')).toBe(MAIN_MENU);
  });

  it.each([
    ['main menu', []],
    ['Know More', ['1']],
    ['an information screen', ['1', '2']],
    ['Account Menu', ['2']],
    ['Customer ID entry', ['2', '1']],
    ['PIN entry', ['2', '1', 'C0A1B2C3D']],
    ['name entry', ['2', '2']],
    ['e-mail entry', ['2', '2', 'Jane Doe']],
    ['PIN choice', ['2', '2', 'Jane Doe', '00']],
    ['PIN confirmation', ['2', '2', 'Jane Doe', '00', '24680']],
    ['a screen with a hint', ['9']],
  ])('exits with END from %s', async (_label, inputs) => {
    const handset = new Handset(stack.app);
    await handset.dial();
    for (const input of inputs) expect(await handset.send(input)).toMatch(/^CON /);
    expect(await handset.send('*')).toBe(GOODBYE);
    // The session is over: nothing typed afterwards is applied.
    expect(await handset.send('1')).toBe('END This session has ended. Please dial again.');
  });

  it('exits with END from every signed-in screen', async () => {
    const { customerId } = await createAccount('Exit Tester');
    for (const inputs of [[], ['1'], ['2'], ['2', PIN], ['2', PIN, '13579']]) {
      const handset = new Handset(stack.app);
      await handset.dial();
      expect(await handset.sendAll('2', '1', customerId, PIN)).toMatch(/^CON Welcome, Exit\n/);
      for (const input of inputs) expect(await handset.send(input)).toMatch(/^CON /);
      expect(await handset.send('*')).toBe(GOODBYE);
    }
  });

  it('replays the inputs of a dial-string shortcut in order', async () => {
    const handset = new Handset(stack.app);
    const reply = await post(stack.app, {
      sessionId: handset.sessionId,
      serviceCode: '*384*1#',
      phoneNumber: handset.phoneNumber,
      text: '1*2',
    });
    expect(reply.body).toMatch(/^CON Pricing\n/);
    const next = await post(stack.app, {
      sessionId: handset.sessionId,
      serviceCode: '*384*1#',
      phoneNumber: handset.phoneNumber,
      text: '1*2*0',
    });
    expect(next.body).toMatch(/^CON Know More\n/);
  });

  it('ends a session whose text does not continue what it consumed', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.send('1');
    const reply = await post(stack.app, {
      sessionId: handset.sessionId,
      serviceCode: SERVICE_CODE,
      phoneNumber: handset.phoneNumber,
      text: '2*1',
    });
    expect(reply.body).toBe('END This session is out of step. Please dial again.');
  });
});

describe('retries', () => {
  it('answers a repeated request the same and applies nothing twice', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    const first = await handset.send('1');
    expect((await handset.repeat()).body).toBe(first);
    // Had the retry been applied, "1" would have been read on the Know More screen.
    expect(await handset.send('2')).toMatch(/^CON Pricing/);
    // An older request arriving late gets its own answer back, still without effect.
    const late = await post(stack.app, {
      sessionId: handset.sessionId,
      serviceCode: SERVICE_CODE,
      phoneNumber: handset.phoneNumber,
      text: '1',
    });
    expect(late.body).toBe(first);
    expect(await handset.send('0')).toMatch(/^CON Know More/);
  });

  it('creates one account when the final confirmation is retried', async () => {
    const { customerId, handset } = await createAccount('Retry Tester');
    const again = await handset.repeat();
    expect(again.body).toContain(customerId);
    const { rows } = await stack.db.query<{ count: string }>(
      "SELECT count(*) FROM ussd_accounts WHERE full_name = 'Retry Tester'",
    );
    expect(rows[0]!.count).toBe('1');
  });

  it('serialises a retry racing its original', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.sendAll('2', '2', 'Race Tester', '00', PIN);
    handset['inputs'].push(PIN);
    const [a, b] = await Promise.all([handset.repeat(), handset.repeat()]);
    expect(a.body).toMatch(/^END Account created/);
    expect(b.body).toBe(a.body);
    const { rows } = await stack.db.query<{ count: string }>(
      "SELECT count(*) FROM ussd_accounts WHERE full_name = 'Race Tester'",
    );
    expect(rows[0]!.count).toBe('1');
  });
});

describe('account creation', () => {
  it('creates an account with an e-mail, stores the phone and a sealed PIN only', async () => {
    const { customerId, handset } = await createAccount('Zoë O’Brien-Núñez', 'Zoe@Example.org', '24680');
    const { rows } = await stack.db.query(
      `SELECT a.full_name, a.email, a.pin_hash, a.pin_key_id, p.phone_number
         FROM ussd_accounts a JOIN ussd_phones p ON p.id = a.phone_id WHERE a.customer_id = $1`,
      [customerId],
    );
    expect(rows[0]).toMatchObject({
      full_name: 'Zoë O’Brien-Núñez',
      email: 'zoe@example.org',
      pin_key_id: 'k1',
      phone_number: handset.phoneNumber,
    });
    expect(rows[0].pin_hash).toMatch(/^v1\.k1\./);
    expect(rows[0].pin_hash).not.toContain('24680');
  });

  it('creates an account without an e-mail (00 skips)', async () => {
    const { customerId } = await createAccount('No Mail');
    const { rows } = await stack.db.query('SELECT email FROM ussd_accounts WHERE customer_id = $1', [
      customerId,
    ]);
    expect(rows[0].email).toBeNull();
  });

  it('refuses bad names and e-mails, trivial PINs, and says when the confirmation does not match', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.sendAll('2', '2');
    expect(await handset.send('J4ne')).toMatch(
      /^CON Use letters, spaces, - or ' only\.\nEnter your full name/,
    );
    await handset.send('Jane Doe');
    expect(await handset.send('jane@')).toMatch(/^CON That e-mail is not valid\./);
    await handset.send('00');
    expect(await handset.send('12345')).toMatch(/^CON That PIN is too easy to guess\.\nChoose a 5-digit PIN/);
    expect(await handset.send('00000')).toMatch(/^CON That PIN is too easy to guess\./);
    expect(await handset.send('123')).toMatch(/^CON A PIN is exactly 5 digits\./);
    expect(await handset.send('24680')).toMatch(/^CON Enter the same PIN again/);
    expect(await handset.send('24681')).toMatch(/^CON The PINs did not match\.\nChoose a 5-digit PIN/);
    await handset.send('24680');
    expect(await handset.send('24680')).toMatch(/^END Account created\. Your Customer ID is C[0-9A-F]{8}\./);
  });
});

describe('PIN handling', () => {
  it('hashes a new PIN once per account creation and once per log-in', async () => {
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      const { customerId } = await createAccount('Scrypt Counter', null, '24680');
      expect(scrypt).toHaveBeenCalledTimes(1);
      scrypt.mockClear();
      const handset = new Handset(stack.app);
      await handset.dial();
      expect(await handset.sendAll('2', '1', customerId, '24680')).toMatch(/^CON Welcome, Scrypt/);
      expect(scrypt).toHaveBeenCalledTimes(1);
    } finally {
      scrypt.mockRestore();
    }
  });

  it('keeps no PIN in clear in the session, the debug record or the logs, through a mismatch and a PIN change', async () => {
    const logs = captureLogs();
    const { app: logged } = await startApp(
      stack.backing.env({
        LOG_LEVEL: 'trace',
        RATE_LIMIT_PER_IP: '100000',
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}logged:`,
      }),
      {
        logDestination: logs.stream,
      },
    );
    const redis = new Redis(TEST_REDIS_URL);
    const rawSession = (sessionId: string) =>
      redis.get(`${stack.backing.redis.keyPrefix}logged:session:${sessionId}`);
    const debugOf = (sessionId: string) =>
      logged.inject({
        method: 'GET',
        url: `/api/ussd/debug/${encodeURIComponent(sessionId)}`,
        headers: { 'x-operator-token': OPERATOR_TOKEN },
      });
    const seen: string[] = [];
    try {
      const creator = new Handset(logged);
      await creator.dial();
      await creator.sendAll('2', '2', 'Held Pin', '00', '86420');
      seen.push((await rawSession(creator.sessionId))!, (await debugOf(creator.sessionId)).body);
      expect(await creator.send('86421')).toMatch(/^CON The PINs did not match\./);
      expect(await creator.send('86420')).toMatch(/^CON Enter the same PIN again/);
      seen.push((await rawSession(creator.sessionId))!, (await debugOf(creator.sessionId)).body);
      const created = await creator.send('86420');
      const customerId = /C[0-9A-F]{8}/.exec(created)![0];

      const changer = new Handset(logged);
      await changer.dial();
      await changer.sendAll('2', '1', customerId, '86420', '2', '86420', '75319');
      const changing = (await rawSession(changer.sessionId))!;
      expect(changing).toMatch(/"heldPin":"h1\.k1\./);
      seen.push(changing, (await debugOf(changer.sessionId)).body);
      expect(await changer.send('75319')).toMatch(/^CON Your PIN has been changed\./);
      seen.push((await rawSession(changer.sessionId))!);
    } finally {
      redis.disconnect();
      await logged.close();
    }
    const everything = [...seen, ...logs.raw].join('\n');
    expect(logs.raw.length).toBeGreaterThan(10);
    for (const pin of ['86420', '86421', '75319']) expect(everything).not.toContain(pin);
    expect(logs.raw.join('')).not.toMatch(/h1\.k1\.|v1\.k1\./);
    for (const debugBody of [seen[1], seen[3], seen[5]]) expect(debugBody).not.toMatch(/h1\.|v1\./);
  });
});

describe('log in, lockout, change PIN, log out', () => {
  it('logs in, shows the account, changes the PIN and logs out', async () => {
    const { customerId, handset: creator } = await createAccount('Amina Njeri', 'amina@example.org');
    const handset = new Handset(stack.app, creator.phoneNumber);
    await handset.dial();
    await handset.sendAll('2', '1');
    expect(await handset.send(customerId.toLowerCase())).toMatch(/^CON Enter the 5-digit PIN for C/);
    expect(await handset.send(PIN)).toBe(
      'CON Welcome, Amina\n1. Account details\n2. Change PIN\n3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit',
    );
    expect((await debug(handset.sessionId)).json()).toMatchObject({
      debugInfo: { state: 'accountHome', context: { isAuthenticated: true } },
    });

    const details = await handset.send('1');
    expect(details).toContain(`Customer ID: ${customerId}`);
    expect(details).toContain('Name: Amina Njeri');
    expect(details).toContain('E-mail: amina@example.org');
    // Masked: whoever is signed in may be using someone else's handset.
    expect(details).toContain(
      `Phone: ${handset.phoneNumber.slice(0, 4)}${'*'.repeat(handset.phoneNumber.length - 6)}${handset.phoneNumber.slice(-2)}`,
    );
    expect(details).not.toContain(handset.phoneNumber);
    await handset.send('0');

    expect(await handset.send('2')).toMatch(/^CON Enter your current PIN/);
    expect(await handset.send('99999')).toMatch(/^CON Wrong PIN\. 2 tries left\./);
    expect(await handset.send(PIN)).toMatch(/^CON Enter a new 5-digit PIN/);
    await handset.send('80642');
    expect(await handset.send('80642')).toMatch(/^CON Your PIN has been changed\.\nWelcome, Amina/);

    expect(await handset.send('3')).toBe(`CON You are logged out.\n${MAIN_MENU.slice(4)}`);
    expect((await debug(handset.sessionId)).json()).toMatchObject({
      debugInfo: { state: 'preMenu', context: { isAuthenticated: false } },
    });
    expect(await handset.send('2')).toMatch(/^CON Account Menu/);

    const again = new Handset(stack.app);
    await again.dial();
    await again.sendAll('2', '1', customerId);
    expect(await again.send(PIN)).toMatch(/^CON Customer ID or PIN is wrong\. 2 tries left\./);
    expect(await again.send('80642')).toMatch(/^CON Welcome, Amina/);
  });

  it('greets a name in Cyrillic by name and pages the options of the signed-in menu with 98', async () => {
    const { customerId, handset: creator } = await createAccount('Александра Петрова');
    const handset = new Handset(stack.app, creator.phoneNumber);
    await handset.dial();
    const first = 'CON Welcome, Александра\n1. Account details\n2. Change PIN\n98. More\n0. Back\n*. Exit';
    const second = 'CON 3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit';
    expect(await handset.sendAll('2', '1', customerId, PIN)).toBe(first);
    expect(await handset.send('1')).toMatch(/^CON Your account\n/);
    expect(await handset.send('0')).toBe(first);
    expect(await handset.send('2')).toMatch(/^CON Enter your current PIN\n/);
    expect(await handset.send('0')).toBe(first);
    expect(await handset.send('98')).toBe(second);
    expect(await handset.send('4')).toMatch(/^CON Order fuel\n1\. /);
    expect(await handset.send('0')).toBe(first);
    expect(await handset.send('98')).toBe(second);
    expect(await handset.send('5')).toBe(
      'CON My orders\nYou have no orders yet.\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(await handset.send('0')).toBe(first);
    expect(await handset.send('98')).toBe(second);
    expect(await handset.send('6')).toMatch(/^CON Stove problem\n1\. Won't light\n/);
    expect(await handset.send('0')).toBe(first);
    expect(await handset.send('98')).toBe(second);
    expect(await handset.send('98')).toBe(`CON Invalid choice. Try again.\n${second.slice(4)}`);
    expect(await handset.send('0')).toBe(first);
    expect(await handset.sendAll('98', '3')).toBe(`CON You are logged out.\n${MAIN_MENU.slice(4)}`);
  });

  it('shows the account details of a Cyrillic name on pages that break between words, never inside one (issue 32)', async () => {
    const { customerId, handset } = await createAccount('Александра Петрова');
    const phone = handset.phoneNumber;
    const session = new Handset(stack.app, phone);
    await session.dial();
    expect(await session.sendAll('2', '1', customerId, PIN)).toMatch(/^CON Welcome, Александра\n/);
    const more = '98. More\n0. Back\n00. Main menu\n*. Exit';
    const pages = [await session.send('1'), await session.send('98'), await session.send('98')];
    expect(pages).toEqual([
      `CON Your account\nCustomer ID: ${customerId}\n${more}`,
      `CON Your account\nName: Александра Петрова\n${more}`,
      `CON Your account\nE-mail: none\nPhone: +${phone.slice(1, 4)}${'*'.repeat(phone.length - 6)}${phone.slice(-2)}\n0. Back\n00. Main menu\n*. Exit`,
    ]);
    expect(await session.sendAll('0', '0')).toBe(pages[0]);
  });

  it('locks the account after three wrong PINs, across a new session, and says so', async () => {
    const { customerId } = await createAccount('Lock Tester');
    const first = new Handset(stack.app);
    await first.dial();
    await first.sendAll('2', '1', customerId);
    expect(await first.send('11112')).toMatch(/^CON Customer ID or PIN is wrong\. 2 tries left\./);
    expect(await first.send('11113')).toMatch(/^CON Customer ID or PIN is wrong\. 1 try left\./);

    // Redialling does not reset the count: it lives with the account.
    const second = new Handset(stack.app);
    await second.dial();
    await second.sendAll('2', '1', customerId);
    expect(await second.send('11114')).toBe(
      'END Too many wrong PINs. Your account is locked for 10 minutes.',
    );

    const third = new Handset(stack.app);
    await third.dial();
    await third.sendAll('2', '1', customerId);
    expect(await third.send(PIN)).toBe(
      'END Your account is locked after too many wrong PINs. Try again in 10 minutes.',
    );
    const { rows } = await stack.db.query(
      'SELECT locked_until > now() AS locked FROM ussd_pin_guards WHERE customer_id = $1',
      [customerId],
    );
    expect(rows[0].locked).toBe(true);

    await stack.db.query(
      "UPDATE ussd_pin_guards SET locked_until = now() - interval '1 second' WHERE customer_id = $1",
      [customerId],
    );
    const fourth = new Handset(stack.app);
    await fourth.dial();
    await fourth.sendAll('2', '1', customerId);
    expect(await fourth.send(PIN)).toMatch(/^CON Welcome, Lock/);
  });

  it('answers an unknown Customer ID like a known one with a wrong PIN, and a malformed one with a hint', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.sendAll('2', '1');
    expect(await handset.send('C12')).toMatch(/^CON A Customer ID looks like C1A2B3C4D\./);
    await handset.send('CFFFFFFF0');
    expect(await handset.send('24680')).toMatch(
      /^CON Customer ID or PIN is wrong\. 2 tries left\.\nEnter the 5-digit PIN for CFFFFFFF0\n/,
    );
    // 0 goes back to correct a mistyped Customer ID.
    expect(await handset.send('0')).toMatch(/^CON Enter your Customer ID/);
  });
});

describe('operator endpoints', () => {
  it('returns the debug record and the session list, without secrets', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.sendAll('2', '2', 'Debug Tester', '00', '24680');
    const response = await debug(handset.sessionId);
    expect(response.statusCode).toBe(200);
    const record = response.json();
    expect(record).toMatchObject({
      sessionId: handset.sessionId,
      debugInfo: {
        state: 'createPinConfirm',
        context: {
          sessionId: handset.sessionId,
          phoneNumber: handset.phoneNumber,
          message: 'Enter the same PIN again\n0. Back\n00. Main menu\n*. Exit',
          isAuthenticated: false,
        },
        status: 'active',
      },
    });
    expect(record.activeSessions).toContain(handset.sessionId);
    expect(response.body).not.toContain('24680');
    expect(response.body).not.toContain('v1.k1');
    expect(response.body).not.toContain('h1.k1');

    const list = await stack.app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(list.statusCode).toBe(200);
    expect(list.json().activeSessions).toContain(handset.sessionId);
    expect(list.json().count).toBe(list.json().activeSessions.length);

    // Nor does the stored session hold the PIN in clear.
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const raw = await redis.get(`${stack.backing.redis.keyPrefix}session:${handset.sessionId}`);
      expect(raw).toContain('createPinConfirm');
      expect(raw).not.toContain('24680');
      // The first entry is held encrypted (not hashed) until the confirmation; never shown to an operator.
      const heldPin = (JSON.parse(raw!) as { state: { draft: { heldPin: string } } }).state.draft.heldPin;
      expect(heldPin).toMatch(/^h1\.k1\.[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(response.body).not.toContain(heldPin.split('.')[4]);
      expect(await redis.ttl(`${stack.backing.redis.keyPrefix}session:${handset.sessionId}`)).toBeGreaterThan(
        170,
      );
    } finally {
      redis.disconnect();
    }
  });

  it('finds a session whose id is 100 characters counted as the request validation counts them (emoji once)', async () => {
    const handset = new Handset(stack.app, undefined, '🔥'.repeat(100));
    expect(await handset.dial()).toBe(MAIN_MENU);
    const response = await debug(handset.sessionId);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ sessionId: handset.sessionId, debugInfo: { status: 'active' } });
    const tooLong = await debug('🔥'.repeat(101));
    expect({ status: tooLong.statusCode, body: tooLong.json() }).toEqual({
      status: 400,
      body: { message: 'sessionId must be at most 100 characters' },
    });
  });

  it('drops ended sessions from the list', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    await handset.send('*');
    const list = await stack.app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(list.json().activeSessions).not.toContain(handset.sessionId);
    expect((await debug(handset.sessionId)).json()).toMatchObject({
      debugInfo: { status: 'ended', state: 'ended' },
    });
  });

  it('answers 404 {message} for an unknown session and 401 without the right token', async () => {
    const unknown = await debug('never-started');
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({ message: 'Session expired or never started' });
    expect((await debug('never-started', '')).statusCode).toBe(401);
    expect((await debug('never-started', 'wrong-token-of-some-length')).statusCode).toBe(401);
    const list = await stack.app.inject({ method: 'GET', url: '/api/ussd/sessions' });
    expect(list.statusCode).toBe(401);
    expect(list.json()).toEqual({ message: 'A valid x-operator-token header is required' });
  });
});

describe('status', () => {
  it('GET / and GET /health report the service and both dependencies', async () => {
    const root = await stack.app.inject({ method: 'GET', url: '/' });
    expect(root.json()).toMatchObject({
      status: 'ok',
      message: 'USSD gateway is running',
      environment: 'test',
    });
    const health = await stack.app.inject({ method: 'GET', url: '/health' });
    expect(health.statusCode).toBe(200);
    expect(health.headers['cache-control']).toBe('no-store');
    expect(health.json()).toMatchObject({
      status: 'ok',
      environment: 'test',
      database: 'connected',
      redis: 'connected',
    });
    expect(typeof health.json().uptime).toBe('number');
    expect(new Date(health.json().timestamp).toISOString()).toBe(health.json().timestamp);
  });
});
