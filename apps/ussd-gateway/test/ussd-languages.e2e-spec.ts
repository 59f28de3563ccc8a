import Redis from 'ioredis';
import { TEST_REDIS_URL } from '@dmrv/testing';
import { PhoneLanguages } from '../src/ussd/phone-languages';
import { Handset, startApp, startTcpRelay, useTestStack, viaProxy } from './ussd-test-kit';

const PIN = '47213';
const stack = useTestStack('ussd-languages', { RATE_LIMIT_PER_IP: '100000' });
let phoneCounter = 0;

/** A fresh phone number under `countryCode`, so remembered languages of other tests never apply. */
const phone = (countryCode: string): string =>
  `+${countryCode}7${String(10_000_000 + process.pid * 100 + (phoneCounter += 1)).slice(-8)}`;

const MAIN_MENUS = {
  en: 'CON Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n3. Language\n*. Exit',
  fr: 'CON Bienvenue chez Clean Cooking\n1. En savoir plus\n2. Mon compte\n3. Langue\n*. Quitter',
  sw: 'CON Karibu Clean Cooking\n1. Jifunze zaidi\n2. Akaunti\n3. Lugha\n*. Toka',
};

/** Each language's answers along the account flows, as a subscriber reads them. */
const FLOWS = {
  en: {
    created: /^END Account created\. Your Customer ID is (C[0-9A-F]{8})\./,
    home: /^CON Welcome, Amani\n1\. Account details\n/,
    wrong: /^CON Customer ID or PIN is wrong\. 2 tries left\.\n/,
    pricing: /^CON Pricing\n/,
    goodbye: 'END Thank you for using our service. Goodbye!',
  },
  fr: {
    created: /^END Compte créé\. Votre numéro client est (C[0-9A-F]{8})\./,
    home: /^CON Bienvenue, Amani\n1\. Mon compte\n/,
    wrong: /^CON Numéro client ou PIN incorrect\. Il vous reste 2 essais\.\n/,
    pricing: /^CON Tarifs\nFoyer : 450 l'unité/,
    goodbye: "END Merci d'avoir utilisé notre service. Au revoir !",
  },
  sw: {
    created: /^END Akaunti imefunguliwa\. Nambari yako ya mteja ni (C[0-9A-F]{8})\./,
    home: /^CON Karibu, Amani\n1\. Maelezo ya akaunti\n/,
    wrong: /^CON Nambari ya mteja au PIN si sahihi\. Umebakiwa na majaribio 2\.\n/,
    pricing: /^CON Bei\nJiko: 450 kwa moja/,
    goodbye: 'END Asante kwa kutumia huduma yetu. Kwaheri!',
  },
};

describe('the language of a dial', () => {
  it.each([
    ['254', 'en'],
    ['255', 'sw'],
    ['243', 'fr'],
    ['225', 'fr'],
    ['44', 'en'],
  ] as const)(
    'a +%s phone that never chose gets %s from the country-code table',
    async (countryCode, language) => {
      expect(await new Handset(stack.app, phone(countryCode)).dial()).toBe(MAIN_MENUS[language]);
    },
  );

  it('is changed from the main menu, and remembered for the phone on the next dial', async () => {
    const handset = new Handset(stack.app, phone('254'));
    await handset.dial();
    expect(await handset.send('3')).toBe(
      'CON Choose your language\n1. English\n2. Français\n3. Kiswahili\n0. Back\n*. Exit',
    );
    // Over 80 characters with its ç (UCS-2), the screen goes out in GSM-7 letters.
    expect(await handset.send('2')).toBe(`CON Langue : francais.\n${MAIN_MENUS.fr.slice(4)}`);
    expect(await handset.send('1')).toMatch(/^CON En savoir plus\n1\. A propos du service\n/);
    const { rows } = await stack.db.query('SELECT language FROM ussd_phones WHERE phone_number = $1', [
      handset.phoneNumber,
    ]);
    expect(rows).toEqual([{ language: 'fr' }]);
    expect(await new Handset(stack.app, handset.phoneNumber).dial()).toBe(MAIN_MENUS.fr);
  });

  it('follows the account once signed in, on any phone', async () => {
    const owner = new Handset(stack.app, phone('243'));
    await owner.dial();
    const created = await owner.sendAll('2', '2', 'Amani Juma', '00', PIN, PIN);
    const customerId = FLOWS.fr.created.exec(created)![1]!;
    const signedIn = new Handset(stack.app, owner.phoneNumber);
    await signedIn.dial();
    await signedIn.sendAll('2', '1', customerId, PIN, '00', '3');
    expect(await signedIn.send('3')).toMatch(/^CON Lugha: Kiswahili\.\n/);
    const { rows } = await stack.db.query('SELECT language FROM ussd_accounts WHERE customer_id = $1', [
      customerId,
    ]);
    expect(rows).toEqual([{ language: 'sw' }]);
    // A neighbour's English phone: the main menu in English, the account in Swahili once signed in.
    const borrowed = new Handset(stack.app, phone('254'));
    expect(await borrowed.dial()).toBe(MAIN_MENUS.en);
    expect(await borrowed.sendAll('2', '1', customerId, PIN)).toMatch(FLOWS.sw.home);
    expect(await borrowed.send('3')).toBe(`CON Umeondoka kwenye akaunti.\n${MAIN_MENUS.sw.slice(4)}`);
  });

  it('is the language the account was created in, until it chooses another', async () => {
    const owner = new Handset(stack.app, phone('243'));
    await owner.dial();
    const customerId = FLOWS.fr.created.exec(
      await owner.sendAll('2', '2', 'Amani Juma', '00', PIN, PIN),
    )![1]!;
    const { rows } = await stack.db.query('SELECT language FROM ussd_accounts WHERE customer_id = $1', [
      customerId,
    ]);
    expect(rows).toEqual([{ language: 'fr' }]);
    // Signed in from a Kenyan phone that never chose: the main menu in English, the account in French.
    const kenyan = new Handset(stack.app, phone('254'));
    expect(await kenyan.dial()).toBe(MAIN_MENUS.en);
    expect(await kenyan.sendAll('2', '1', customerId, PIN)).toMatch(FLOWS.fr.home);
  });
});

describe('the copy of remembered languages in Redis', () => {
  let redis: Redis;
  const copyKey = (prefix = stack.backing.redis.keyPrefix): string => `${prefix}phone-languages`;
  /** The language menu's option for each language, and the answer to choosing it. */
  const CHOICES = {
    en: { option: '1', answer: /^CON Language: English\.\n/ },
    fr: { option: '2', answer: /^CON Langue : francais\.\n/ },
    sw: { option: '3', answer: /^CON Lugha: Kiswahili\.\n/ },
  };

  beforeAll(() => {
    redis = new Redis(TEST_REDIS_URL);
  });
  afterAll(() => redis.disconnect());

  it('is written by a change after PostgreSQL, and marked complete by a fill (a phone it lacks never chose)', async () => {
    const handset = new Handset(stack.app, phone('255'));
    await handset.dial();
    await handset.sendAll('3', CHOICES.fr.option);
    expect(await redis.hget(copyKey(), handset.phoneNumber)).toBe('fr');
    await stack.app.get(PhoneLanguages).fill();
    expect(await redis.hget(copyKey(), '!complete')).not.toBeNull();
    expect(await new Handset(stack.app, handset.phoneNumber).dial()).toBe(MAIN_MENUS.fr);
    expect(await new Handset(stack.app, phone('255')).dial()).toBe(MAIN_MENUS.sw);
  });

  it('after a change has answered, every new dial of the phone shows it, while dials and fills race the change', async () => {
    const phoneNumber = phone('254');
    const rounds = ['fr', 'sw', 'en', 'sw', 'fr', 'en'] as const;
    for (const [round, language] of rounds.entries()) {
      // Every other round starts without a copy (flushed): the racing dials read PostgreSQL, and fills race the change.
      if (round % 2 === 0) await redis.del(copyKey());
      const changer = new Handset(stack.app, phoneNumber);
      await changer.dial();
      await changer.send('3');
      const racing = [
        ...Array.from({ length: 8 }, () => new Handset(stack.app, phoneNumber).dial()),
        stack.app.get(PhoneLanguages).fill(),
      ];
      expect(await changer.send(CHOICES[language].option)).toMatch(CHOICES[language].answer);
      const after = await Promise.all(
        Array.from({ length: 4 }, () => new Handset(stack.app, phoneNumber).dial()),
      );
      expect(after).toEqual(Array.from({ length: 4 }, () => MAIN_MENUS[language]));
      await Promise.all(racing);
      expect(await new Handset(stack.app, phoneNumber).dial()).toBe(MAIN_MENUS[language]);
      expect(await redis.hget(copyKey(), phoneNumber)).toBe(language);
    }
  });

  it('answers a dial without PostgreSQL once the copy holds the phone; without the copy, an unreadable database costs only the choice', async () => {
    const relay = await startTcpRelay(Number(new URL(stack.backing.database.url).port || 5432));
    const prefix = `${stack.backing.redis.keyPrefix}database-down:`;
    const { app } = await startApp(
      stack.backing.env({
        DATABASE_URL: viaProxy(stack.backing.database.url, { host: '127.0.0.1', port: relay.port }),
        REDIS_KEY_PREFIX: prefix,
      }),
    );
    try {
      const chooser = new Handset(app, phone('243'));
      await chooser.dial();
      await chooser.sendAll('3', CHOICES.sw.option);
      await app.get(PhoneLanguages).fill();
      await relay.stop();
      expect(await new Handset(app, chooser.phoneNumber).dial()).toBe(MAIN_MENUS.sw);
      expect(await new Handset(app, phone('254')).dial()).toBe(MAIN_MENUS.en);
      await redis.del(copyKey(prefix));
      // The country code decides (+243: French), as before the copy existed.
      expect(await new Handset(app, chooser.phoneNumber).dial()).toBe(MAIN_MENUS.fr);
    } finally {
      await relay.start();
      await app.close();
      await relay.close();
    }
  });
});

describe.each(['en', 'fr', 'sw'] as const)('the account flows in %s', (language) => {
  const countryCode = { en: '254', fr: '243', sw: '255' }[language];
  const flow = FLOWS[language];

  it('reads Know More, creates an account, refuses a wrong PIN, signs in and says goodbye', async () => {
    const reader = new Handset(stack.app, phone(countryCode));
    expect(await reader.dial()).toBe(MAIN_MENUS[language]);
    expect(await reader.sendAll('1', '2')).toMatch(flow.pricing);
    expect(await reader.send('*')).toBe(flow.goodbye);

    const creator = new Handset(stack.app, phone(countryCode));
    await creator.dial();
    const customerId = flow.created.exec(await creator.sendAll('2', '2', 'Amani Juma', '00', PIN, PIN))![1]!;

    const login = new Handset(stack.app, creator.phoneNumber);
    await login.dial();
    expect(await login.sendAll('2', '1', customerId, '11111')).toMatch(flow.wrong);
    expect(await login.send(PIN)).toMatch(flow.home);
    expect(await login.send('*')).toBe(flow.goodbye);
  });
});

describe('configuration', () => {
  it('takes its own country-code table and default language', async () => {
    const { app: configured } = await startApp(
      stack.backing.env({
        LANGUAGE_BY_COUNTRY_CODE: '254:sw',
        DEFAULT_LANGUAGE: 'fr',
        REDIS_KEY_PREFIX: `${stack.backing.redis.keyPrefix}configured:`,
      }),
    );
    try {
      expect(await new Handset(configured, phone('254')).dial()).toBe(MAIN_MENUS.sw);
      expect(await new Handset(configured, phone('255')).dial()).toBe(MAIN_MENUS.fr);
    } finally {
      await configured.close();
    }
  });

  it('refuses to start on a language without a content file, naming the variable', async () => {
    await expect(startApp(stack.backing.env({ LANGUAGE_BY_COUNTRY_CODE: '254:de' }))).rejects.toThrow(
      'LANGUAGE_BY_COUNTRY_CODE: "254:de" names a language without a content file (known: en, fr, sw)',
    );
  });
});
