import Redis from 'ioredis';
import { TEST_REDIS_URL } from '@dmrv/testing';
import { captureLogs, Handset, startApp, useTestStack } from './ussd-test-kit';

const PIN = '86420';
const stack = useTestStack('ussd-households', { RATE_LIMIT_PER_IP: '100000', PIN_LOCKOUT_SECONDS: '600' });
let phoneCounter = 0;
const phone = (countryCode: string): string =>
  `+${countryCode}7${String(20_000_000 + process.pid * 100 + (phoneCounter += 1)).slice(-8)}`;

jest.setTimeout(60_000);

/** What each language answers along the household flows. */
const TEXTS = {
  en: {
    countryCode: '254',
    created: /Your Customer ID is (C[0-9A-F]{8})/,
    products:
      'CON Order fuel\n1. Pellets 10 kg: KES 250\n2. Pellets 25 kg: KES 600\n3. Briquettes 10 kg: KES 180\n0. Back\n00. Main menu\n*. Exit',
    confirm:
      'CON 2 x Pellets 10 kg\nTotal: KES 500\nTo: Kibera market\nEnter your PIN to confirm\n0. Back\n00. Main menu\n*. Exit',
    placed: /^END Order (F\d{6}) placed: KES 500\. We will call you before delivery\.$/,
    remembered: /^CON Where should we deliver\? \(village, landmark\)\n1\. Kibera market\n/,
    mine: /^CON My orders\n(F\d{6}) \w{3} \d{1,2}: 1 x Pellets 25 kg, placed\n(F\d{6}) \w{3} \d{1,2}: 2 x Pellets 10 kg, placed\n/,
    wrongPin: /^CON Wrong PIN\. 2 tries left\.\n2 x Pellets 10 kg\n/,
    ticket: /^END Thank you\. Your ticket number is (T\d{6})\. A technician will call you\.$/,
  },
  fr: {
    countryCode: '243',
    created: /Votre numéro client est (C[0-9A-F]{8})/,
    products:
      'CON Commander du combustible\n1. Granulés 10 kg : 250 KES\n2. Granulés 25 kg : 600 KES\n3. Briquettes 10 kg : 180 KES\n0. Retour\n00. Menu principal\n*. Quitter',
    confirm:
      'CON 2 x Granulés 10 kg\nTotal : 500 KES\nLivraison : Kibera market\nEntrez votre PIN pour confirmer\n0. Retour\n00. Menu principal\n*. Quitter',
    placed: /^END Commande (F\d{6}) enregistrée : 500 KES\. Nous vous appellerons avant la livraison\.$/,
    remembered: /^CON Où livrer \? \(village, repère\)\n1\. Kibera market\n/,
    mine: /^CON Mes commandes\n(F\d{6}) \d{1,2} \w+\.? : 1 x Granulés 25 kg, enregistrée\n(F\d{6}) \d{1,2} \w+\.? : 2 x Granulés 10 kg, enregistrée\n/,
    wrongPin: /^CON PIN incorrect\. Il vous reste 2 essais\.\n2 x Granulés 10 kg\n/,
    ticket: /^END Merci\. Votre numéro de ticket est (T\d{6})\. Un technicien vous appellera\.$/,
  },
  sw: {
    countryCode: '255',
    created: /Nambari yako ya mteja ni (C[0-9A-F]{8})/,
    products:
      'CON Agiza nishati\n1. Pelleti kilo 10: KES 250\n2. Pelleti kilo 25: KES 600\n3. Briketi kilo 10: KES 180\n0. Rudi\n00. Menyu kuu\n*. Toka',
    confirm:
      'CON 2 x Pelleti kilo 10\nJumla: KES 500\nMahali: Kibera market\nWeka PIN yako kuthibitisha\n0. Rudi\n00. Menyu kuu\n*. Toka',
    placed: /^END Agizo (F\d{6}) limepokelewa: KES 500\. Tutakupigia simu kabla ya kukuletea\.$/,
    remembered: /^CON Tukuletee wapi\? \(kijiji, alama ya eneo\)\n1\. Kibera market\n/,
    mine: /^CON Maagizo yangu\n(F\d{6}) \d{1,2} \w{3}: 1 x Pelleti kilo 25, limepokelewa\n(F\d{6}) \d{1,2} \w{3}: 2 x Pelleti kilo 10, limepokelewa\n/,
    wrongPin: /^CON PIN si sahihi\. Umebakiwa na majaribio 2\.\n2 x Pelleti kilo 10\n/,
    ticket: /^END Asante\. Nambari ya tiketi yako ni (T\d{6})\. Fundi atakupigia simu\.$/,
  },
};
type Code = keyof typeof TEXTS;

async function newAccount(language: Code): Promise<{ customerId: string; phoneNumber: string }> {
  const handset = new Handset(stack.app, phone(TEXTS[language].countryCode));
  await handset.dial();
  const created = await handset.sendAll('2', '2', 'Amani Juma', '00', PIN, PIN);
  return { customerId: TEXTS[language].created.exec(created)![1]!, phoneNumber: handset.phoneNumber };
}

async function signedIn(account: { customerId: string; phoneNumber: string }): Promise<Handset> {
  const handset = new Handset(stack.app, account.phoneNumber);
  await handset.dial();
  await handset.sendAll('2', '1', account.customerId, PIN);
  return handset;
}

const ordersOf = async (customerId: string) =>
  (
    await stack.db.query(
      `SELECT o.id, o.product_code, o.quantity, o.total_minor, o.currency, o.delivery_point, o.status, o.phone_number
         FROM ussd_orders o JOIN ussd_accounts a ON a.id = o.account_id WHERE a.customer_id = $1 ORDER BY o.id`,
      [customerId],
    )
  ).rows as Array<Record<string, unknown>>;

describe.each(['en', 'fr', 'sw'] as const)('a household in %s', (language) => {
  const texts = TEXTS[language];

  it('orders fuel, confirms with its PIN, gets the order number; the next order offers the same delivery point', async () => {
    const account = await newAccount(language);
    const handset = await signedIn(account);
    expect(await handset.send('4')).toBe(texts.products);
    await handset.sendAll('1', '2');
    expect(await handset.send('Kibera market')).toBe(texts.confirm);
    const placed = texts.placed.exec(await handset.send(PIN));
    expect(placed).not.toBeNull();
    const orders = await ordersOf(account.customerId);
    expect(orders).toEqual([
      {
        id: String(Number(placed![1]!.slice(1))),
        product_code: 'pellets-10kg',
        quantity: 2,
        total_minor: 50_000,
        currency: 'KES',
        delivery_point: 'Kibera market',
        status: 'placed',
        phone_number: account.phoneNumber,
      },
    ]);

    const again = await signedIn(account);
    await again.sendAll('4', '2');
    expect(await again.send('1')).toMatch(texts.remembered);
    await again.send('1');
    expect(await again.send(PIN)).toMatch(/^END \S+ F\d{6} /);
    const both = await ordersOf(account.customerId);
    expect(both.map((order) => [order.product_code, order.quantity, order.delivery_point])).toEqual([
      ['pellets-10kg', 2, 'Kibera market'],
      ['pellets-25kg', 1, 'Kibera market'],
    ]);

    const mine = await signedIn(account);
    const listed = texts.mine.exec(await mine.send('5'));
    // Newest first.
    expect([listed?.[1], listed?.[2]]).toEqual(
      both.reverse().map((order) => `F${String(order.id).padStart(6, '0')}`),
    );
  });

  it('keeps the order through a wrong PIN and places nothing until the right one', async () => {
    const account = await newAccount(language);
    const handset = await signedIn(account);
    await handset.sendAll('4', '1', '2', 'Kibera market');
    expect(await handset.send('11111')).toMatch(texts.wrongPin);
    expect(await ordersOf(account.customerId)).toEqual([]);
    expect(await handset.send(PIN)).toMatch(texts.placed);
    expect(await ordersOf(account.customerId)).toHaveLength(1);
  });

  it('reports a stove problem with a note, and without one', async () => {
    const account = await newAccount(language);
    const withNote = await signedIn(account);
    await withNote.sendAll('6', '2');
    const first = texts.ticket.exec(await withNote.send('Smoke when cooking ugali'));
    const without = await signedIn(account);
    await without.sendAll('6', '1');
    const second = texts.ticket.exec(await without.send('00'));
    const { rows } = await stack.db.query(
      `SELECT t.id, t.category, t.note, t.status FROM ussd_tickets t JOIN ussd_accounts a ON a.id = t.account_id WHERE a.customer_id = $1 ORDER BY t.id`,
      [account.customerId],
    );
    expect(rows).toEqual([
      {
        id: String(Number(first![1]!.slice(1))),
        category: 'smoke',
        note: 'Smoke when cooking ugali',
        status: 'open',
      },
      { id: String(Number(second![1]!.slice(1))), category: 'wont_light', note: null, status: 'open' },
    ]);
  });
});

describe("the aggregator's retries", () => {
  it('never place a second order: concurrent retries of the confirmation, and a late one, get the first answer', async () => {
    const account = await newAccount('en');
    const handset = await signedIn(account);
    await handset.sendAll('4', '1', '2', 'Kibera market');
    handset['inputs'].push(PIN);
    const replies = await Promise.all([handset.repeat(), handset.repeat(), handset.repeat()]);
    expect(new Set(replies.map((reply) => reply.body)).size).toBe(1);
    expect(replies[0]!.body).toMatch(TEXTS.en.placed);
    expect((await handset.repeat()).body).toBe(replies[0]!.body);
    expect(await ordersOf(account.customerId)).toHaveLength(1);
  });

  it('never open a second ticket', async () => {
    const account = await newAccount('en');
    const handset = await signedIn(account);
    await handset.sendAll('6', '3');
    handset['inputs'].push('Handle came off');
    const replies = await Promise.all([handset.repeat(), handset.repeat()]);
    expect(replies[0]!.body).toMatch(TEXTS.en.ticket);
    expect(replies[1]!.body).toBe(replies[0]!.body);
    const { rows } = await stack.db.query(
      'SELECT count(*)::int AS n FROM ussd_tickets t JOIN ussd_accounts a ON a.id = t.account_id WHERE a.customer_id = $1',
      [account.customerId],
    );
    expect(rows).toEqual([{ n: 1 }]);
  });
});

describe('the PIN that confirms an order', () => {
  it('goes through the guarded check: three wrong ones lock the account and end the session', async () => {
    const account = await newAccount('en');
    const handset = await signedIn(account);
    await handset.sendAll('4', '1', '1', 'Kibera market');
    await handset.sendAll('11111', '11112');
    expect(await handset.send('11113')).toBe(
      'END Too many wrong PINs. Your account is locked for 10 minutes.',
    );
    expect(await ordersOf(account.customerId)).toEqual([]);
  });

  it('is kept in no order, ticket, session record or log line', async () => {
    const logs = captureLogs();
    const prefix = `${stack.backing.redis.keyPrefix}logged:`;
    const { app } = await startApp(
      stack.backing.env({ LOG_LEVEL: 'trace', RATE_LIMIT_PER_IP: '100000', REDIS_KEY_PREFIX: prefix }),
      {
        logDestination: logs.stream,
      },
    );
    const redis = new Redis(TEST_REDIS_URL);
    try {
      const secret = '97531';
      const creator = new Handset(app, phone('254'));
      await creator.dial();
      const customerId = TEXTS.en.created.exec(
        await creator.sendAll('2', '2', 'Pin Keeper', '00', secret, secret),
      )![1]!;
      const orderer = new Handset(app, creator.phoneNumber);
      await orderer.dial();
      await orderer.sendAll('2', '1', customerId, secret, '4', '1', '1', 'Kibera market');
      expect(await orderer.send(secret)).toMatch(/^END Order F\d{6} placed: KES 250\./);
      const reporter = new Handset(app, creator.phoneNumber);
      await reporter.dial();
      expect(await reporter.sendAll('2', '1', customerId, secret, '6', '4', '00')).toMatch(TEXTS.en.ticket);

      const stored = [
        ...(await stack.db.query('SELECT row_to_json(o)::text AS row FROM ussd_orders o')).rows,
        ...(await stack.db.query('SELECT row_to_json(t)::text AS row FROM ussd_tickets t')).rows,
      ].map((row: { row: string }) => row.row);
      expect(stored.length).toBeGreaterThan(1);
      const sessions = await Promise.all(
        [orderer, reporter].map((handset) => redis.get(`${prefix}session:${handset.sessionId}`)),
      );
      expect(sessions.every((session) => session !== null)).toBe(true);
      for (const text of [...stored, ...sessions, logs.raw.join('')]) expect(text).not.toContain(secret);
      expect(logs.lines.some((line) => line.msg === 'order placed')).toBe(true);
    } finally {
      redis.disconnect();
      await app.close();
    }
  });
});
