import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InfoOverrides } from './content';
import { CONTENT_DIRECTORY, Language, Languages, loadLanguages } from './languages';
import {
  applyEffectResult,
  applyInput,
  CatalogueItem,
  Effect,
  EffectResult,
  initialState,
  isAuthenticated,
  lockedOut,
  MenuState,
  SCREENS,
  Step,
} from './menu-machine';
import { MenuRenderer } from './menu-renderer';
import { GSM7_SCREEN_LIMIT, screenCost, toGsm7, UCS2_SCREEN_LIMIT } from './screen-text';

const shipped = loadLanguages();
const renderer = new MenuRenderer(shipped);

/** Follows a step to its end with one chosen result per effect. */
function settle(step: Step, results: Partial<Record<Effect['type'], EffectResult>>): MenuState {
  let current = step;
  while (current.effect) {
    const result = results[current.effect.type];
    if (!result) throw new Error(`no result for ${current.effect.type}`);
    current = applyEffectResult(current.state, result);
  }
  return current.state;
}

const defaults: Partial<Record<Effect['type'], EffectResult>> = {
  holdPin: { type: 'held', heldPin: 'held-pin' },
  matchPin: { type: 'matched', match: true },
  createAccount: { type: 'created', customerId: 'C0A1B2C3D' },
  verifyPin: { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: null, pinVersion: 1 } },
  loadAccount: { type: 'loaded', account: { customerId: 'C0A1B2C3D', fullName: 'Jane Smith', email: null, phoneNumber: '+254700000001' } },
  replacePin: { type: 'replaced', pinVersion: 2 },
  loadCatalogue: { type: 'catalogueLoaded', products: [], lastDeliveryPoint: null },
  placeOrder: { type: 'orderPlaced', order: { orderNumber: 'F000042', totalMinor: 50_000, currency: 'KES' } },
  loadOrders: { type: 'ordersLoaded', orders: [] },
  createTicket: { type: 'ticketCreated', ticketNumber: 'T000007' },
};

function walk(inputs: string[], results = defaults, from = initialState()): MenuState {
  return inputs.reduce((state, input) => settle(applyInput(state, input, renderer), results), from);
}

const text = (state: MenuState): string => {
  const screen = renderer.render(state);
  return `${screen.kind} ${screen.text}`;
};

const CATALOGUE: CatalogueItem[] = [
  { code: 'pellets-10kg', kind: 'pellets', sizeKg: 10, priceMinor: 25_000, currency: 'KES' },
  { code: 'pellets-25kg', kind: 'pellets', sizeKg: 25, priceMinor: 60_000, currency: 'KES' },
  // A kind no content file names yet: shown by its code.
  { code: 'charcoal-12', kind: 'charcoal', sizeKg: 12.5, priceMinor: 9_999_999, currency: 'KES' },
];

describe('menu machine', () => {
  it('starts at the main menu with the spec options', () => {
    expect(text(initialState())).toBe('CON Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n3. Language\n*. Exit');
    expect(text(initialState('fr'))).toBe('CON Bienvenue chez Clean Cooking\n1. En savoir plus\n2. Mon compte\n3. Langue\n*. Quitter');
    expect(text(initialState('sw'))).toBe('CON Karibu Clean Cooking\n1. Jifunze zaidi\n2. Akaunti\n3. Lugha\n*. Toka');
  });

  it('changes the language from the main menu and keeps it through sign-in, sign-out and the farewell', () => {
    const menu = walk(['3']);
    expect(text(menu)).toBe('CON Choose your language\n1. English\n2. Français\n3. Kiswahili\n0. Back\n*. Exit');
    const chosen = applyInput(menu, '3', renderer);
    expect(chosen.effect).toEqual({ type: 'setLanguage', language: 'sw', customerId: null });
    const swahili = settle(chosen, { setLanguage: { type: 'languageSet', language: 'sw' } });
    expect(text(swahili)).toBe('CON Lugha: Kiswahili.\nKaribu Clean Cooking\n1. Jifunze zaidi\n2. Akaunti\n3. Lugha\n*. Toka');
    expect(walk(['9', '0'], defaults, swahili)).toMatchObject({ screen: 'preMenu', language: 'sw' });
    const home = walk(['2', '1', 'C0A1B2C3D', '24680'], defaults, swahili);
    expect(home).toMatchObject({ screen: 'accountHome', language: 'sw' });
    // An account that chose a language gets it whatever the phone's.
    const french = walk(['2', '1', 'C0A1B2C3D', '24680'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: 'fr', pinVersion: 1 } } }, swahili);
    expect(french).toMatchObject({ screen: 'accountHome', language: 'fr' });
    expect(applyInput(walk(['00', '3'], defaults, french), '1', renderer).effect).toEqual({ type: 'setLanguage', language: 'en', customerId: 'C0A1B2C3D' });
    expect(walk(['3'], defaults, home)).toMatchObject({ screen: 'preMenu', language: 'sw', notice: { kind: 'loggedOut' } });
    expect(text(walk(['*'], defaults, home))).toBe('END Asante kwa kutumia huduma yetu. Kwaheri!');
    expect(text(lockedOut(2, 'fr'))).toBe('END Votre compte est bloqué après trop de PIN incorrects. Réessayez dans 2 minutes.');
    expect(walk(['3', '4'])).toMatchObject({ screen: 'language', notice: { kind: 'invalidChoice' } });
  });

  it.each([
    ['1', 'about', 'About this service'],
    ['2', 'pricing', 'Pricing'],
    ['3', 'delivery', 'Delivery'],
  ])('Know More option %s opens the %s screen', (choice, topic, title) => {
    const state = walk(['1', choice]);
    expect(state).toMatchObject({ screen: 'info', topic });
    expect(text(state).startsWith(`CON ${title}\n`)).toBe(true);
  });

  it('exits with END from every screen', () => {
    for (const screen of SCREENS.filter((name) => name !== 'ended')) {
      const state: MenuState = {
        screen,
        topic: 'about',
        draft: { fullName: 'Jane', heldPin: 'x' },
        loginCustomerId: 'C0A1B2C3D',
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      };
      const after = settle(applyInput(state, '*', renderer), defaults);
      expect(text(after)).toBe('END Thank you for using our service. Goodbye!');
    }
  });

  it('goes back with 0 and to the main menu with 00', () => {
    expect(walk(['1', '2', '0']).screen).toBe('knowMore');
    expect(walk(['1', '2', '0', '0']).screen).toBe('preMenu');
    expect(walk(['2', '1', '00']).screen).toBe('preMenu');
    expect(walk(['2', '2', 'Jane Smith', '0']).screen).toBe('createName');
  });

  it('re-shows the screen with a hint on an invalid choice', () => {
    const state = walk(['1', '7']);
    expect(state.screen).toBe('knowMore');
    expect(text(state).startsWith('CON Invalid choice. Try again.\nKnow More\n')).toBe(true);
    // The hint is one-shot.
    expect(text(walk(['1', '7', '9', '0', '1'])).startsWith('CON Know More')).toBe(true);
  });

  it('creates an account with and without e-mail', () => {
    const withEmail = walk(['2', '2', 'Zoë O’Brien-Núñez', 'zoe@example.org', '24680']);
    expect(withEmail).toMatchObject({ screen: 'createPinConfirm', draft: { fullName: 'Zoë O’Brien-Núñez', email: 'zoe@example.org' } });
    const created = walk(['24680'], defaults, withEmail);
    expect(created).toMatchObject({ screen: 'ended', farewell: { kind: 'accountCreated', customerId: 'C0A1B2C3D' } });
    expect(text(created)).toBe('END Account created. Your Customer ID is C0A1B2C3D. Keep it safe: you need it and your PIN to log in.');

    const skipped = walk(['2', '2', 'Jane Smith', '00']);
    expect(skipped).toMatchObject({ screen: 'createPin', draft: { fullName: 'Jane Smith', email: null } });
  });

  it('refuses bad names, e-mails, trivial and malformed PINs and mismatched confirmations', () => {
    expect(walk(['2', '2', 'J4ne']).notice).toEqual({ kind: 'invalidName' });
    expect(walk(['2', '2', 'Jane', 'not-an-email']).notice).toEqual({ kind: 'invalidEmail' });
    expect(walk(['2', '2', 'Jane', '00', '12345']).notice).toEqual({ kind: 'trivialPin' });
    expect(walk(['2', '2', 'Jane', '00', '00000']).notice).toEqual({ kind: 'trivialPin' });
    expect(walk(['2', '2', 'Jane', '00', '123']).notice).toEqual({ kind: 'invalidPin' });
    const mismatch = walk(['2', '2', 'Jane', '00', '24680', '13579'], { ...defaults, matchPin: { type: 'matched', match: false } });
    expect(mismatch).toMatchObject({ screen: 'createPin', notice: { kind: 'pinMismatch' } });
    expect(text(mismatch)).toContain('The PINs did not match.');
  });

  it('never keeps a PIN in the state, only the held form, which goes to the confirmation and the write', () => {
    const pinEntered = applyInput(walk(['2', '2', 'Jane', '00']), '24680', renderer);
    expect(pinEntered.effect).toEqual({ type: 'holdPin', pin: '24680' });
    const state = applyEffectResult(pinEntered.state, { type: 'held', heldPin: 'held-pin' }).state;
    expect(JSON.stringify(state)).not.toContain('24680');
    expect(state.draft?.heldPin).toBe('held-pin');
    const confirmed = applyInput(state, '24680', renderer);
    expect(confirmed.effect).toEqual({ type: 'matchPin', pin: '24680', heldPin: 'held-pin' });
    expect(applyEffectResult(confirmed.state, { type: 'matched', match: true }).effect).toEqual({
      type: 'createAccount',
      fullName: 'Jane',
      email: null,
      heldPin: 'held-pin',
      language: null,
    });
    const changing = walk(['2', '24680', '97531'], defaults, { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } });
    expect(changing).toMatchObject({ screen: 'changePinConfirm', draft: { heldPin: 'held-pin' } });
    const changed = applyInput(changing, '97531', renderer);
    expect(applyEffectResult(changed.state, { type: 'matched', match: true }).effect).toEqual({
      type: 'replacePin',
      customerId: 'C0A1B2C3D',
      heldPin: 'held-pin',
      expectedPinVersion: 1,
    });
  });

  it.each([
    ['en', 'END The service is busy. Your account was not created. Please dial again in a minute.', 'END The service is busy. Your PIN was not changed. Please dial again in a minute.'],
    ['fr', "END Le service est occupé. Votre compte n'a pas été créé. Rappelez dans une minute.", "END Le service est occupé. Votre PIN n'a pas été changé. Rappelez dans une minute."],
    [
      'sw',
      'END Huduma ina shughuli nyingi. Akaunti yako haijafunguliwa. Tafadhali piga tena baada ya dakika moja.',
      'END Huduma ina shughuli nyingi. PIN yako haijabadilishwa. Tafadhali piga tena baada ya dakika moja.',
    ],
  ])('ends an account creation and a PIN change the hash gate refused with the busy text (%s), signed out', (language, creation, change) => {
    const busy = { ...defaults, createAccount: { type: 'hashBusy' }, replacePin: { type: 'hashBusy' } } as const;
    const created = walk(['2', '2', 'Jane Smith', '00', '24680', '24680'], busy, initialState(language));
    expect(created).toEqual({ screen: 'ended', language, farewell: { kind: 'pinHashBusyCreate' } });
    expect(text(created)).toBe(creation);
    const home: MenuState = { screen: 'accountHome', language, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
    const changed = walk(['2', '24680', '97531', '97531'], busy, home);
    expect(changed).toEqual({ screen: 'ended', language, farewell: { kind: 'pinHashBusyChange' } });
    expect(text(changed)).toBe(change);
    // The gate's refusal belongs to those two screens only.
    expect(() => applyEffectResult(home, { type: 'hashBusy' })).toThrow(/does not belong to screen accountHome/);
  });

  it('logs in, shows details, changes the PIN and logs out', () => {
    const home = walk(['2', '1', 'c0a1b2c3d', '24680']);
    expect(home).toEqual({ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane', pinVersion: 1 } });
    expect(walk(['1'], defaults, home)).toMatchObject({ screen: 'accountDetails', auth: home.auth });
    const changed = walk(['2', '24680', '97531', '97531'], defaults, home);
    // The session that changed the PIN keeps itself signed in under the new version.
    expect(changed).toMatchObject({ screen: 'accountHome', notice: { kind: 'pinChanged' }, auth: { pinVersion: 2 } });
    // Another session's change came first: nothing written, and the session ends saying so.
    const stale = walk(['2', '24680', '97531', '97531'], { ...defaults, replacePin: { type: 'replaced', pinVersion: null } }, home);
    expect(text(stale)).toBe('END Your PIN was not changed: it was changed in another session. Please dial again and log in.');
    const out = walk(['3'], defaults, home);
    expect(out).toEqual({ screen: 'preMenu', notice: { kind: 'loggedOut' } });
    expect(walk(['00', '2'], defaults, home).screen).toBe('accountHome');
  });

  it('counts down wrong PINs and ends the session when the account locks', () => {
    const wrong = walk(['2', '1', 'C0A1B2C3D', '11111'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 2 } } });
    // At log-in the wording does not tell a wrong PIN from a Customer ID nobody has.
    expect(text(wrong)).toBe('CON Customer ID or PIN is wrong. 2 tries left.\nEnter the 5-digit PIN for C0A1B2C3D\n0. Back\n00. Main menu\n*. Exit');
    const locked = walk(['11112'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'locked', minutes: 15, justNow: true } } }, wrong);
    expect(text(locked)).toBe('END Too many wrong PINs. Your account is locked for 15 minutes.');
    const home: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
    const wrongOld = walk(['2', '11111'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 1 } } }, home);
    expect(text(wrongOld)).toMatch(/^CON Wrong PIN\. 1 try left\.\nEnter your current PIN\n/);
    const busy = walk(['2', '1', 'C0A1B2C3D', '11111'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'busy' } } });
    expect(text(busy)).toMatch(/^CON Too many PIN attempts at once\. Try again\.\nEnter the 5-digit PIN for C0A1B2C3D\n/);
  });

  it('ends a signed-in session, signed out, when its account is found locked', () => {
    const state = lockedOut(7);
    expect(isAuthenticated(state)).toBe(false);
    expect(text(state)).toBe('END Your account is locked after too many wrong PINs. Try again in 7 minutes.');
    expect(applyInput(state, '1', renderer).state).toEqual(state);
  });

  it('keeps a signed-in screen on one handset screen whatever the name, paging the options when the name takes the room', () => {
    const home = (firstName: string, notice?: MenuState['notice'], page?: number): string =>
      renderer.render({ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName }, notice, page }).text;
    expect(home('Jane')).toMatch(/^Welcome, Jane\n/);
    expect(home('Ọlá', { kind: 'pinChanged' })).toMatch(/^Your PIN has been changed\.\nWelcome, Ola\n/);
    // A name without a GSM-7 form makes the screen UCS-2 (80 characters): the name stays, the options go on with 98.
    expect(home('Александра')).toBe('Welcome, Александра\n1. Account details\n2. Change PIN\n98. More\n0. Back\n*. Exit');
    expect(home('Александра', undefined, 1)).toBe('3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit');
    // A hint and the name do not both fit beside an option: the hint wins, the pages stay as they are.
    expect(home('Александра', { kind: 'pinChanged' })).toBe('Your PIN has been changed.\nWelcome\n1. Account details\n2. Change PIN\n98. More\n0. Back\n*. Exit');
    expect(home('Александра', { kind: 'invalidChoice' }, 1)).toBe(
      'Invalid choice. Try again.\n3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit',
    );
    const signedIn: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Александра' } };
    expect(renderer.pageCount(signedIn)).toBe(2);
    const second = walk(['98'], defaults, signedIn);
    expect(second).toMatchObject({ screen: 'accountHome', page: 1 });
    expect(walk(['98'], defaults, second)).toMatchObject({ page: 1, notice: { kind: 'invalidChoice' } });
    expect(walk(['0'], defaults, second)).toMatchObject({ screen: 'accountHome', page: 0 });
    // Every option answers to its number whichever page shows it.
    expect(walk(['1'], defaults, second).screen).toBe('accountDetails');
    expect(walk(['6'], defaults, signedIn).screen).toBe('reportCategory');
    expect(walk(['6'], defaults, second).screen).toBe('reportCategory');
    expect(walk(['6', '0'], defaults, second)).toEqual({ screen: 'accountHome', auth: signedIn.auth });
    expect(walk(['98'], defaults, { ...signedIn, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } }).notice).toEqual({ kind: 'invalidChoice' });
  });

  it('keeps each detail’s label and value on one page when the details are paged', () => {
    const details = {
      customerId: 'C0A1B2C3D',
      fullName: 'Александра Владимировна Петрова-Сидорова',
      email: 'aleksandra.vladimirovna.petrova@example-domain.org',
      phoneNumber: '+254*******78',
    };
    const state: MenuState = { screen: 'accountDetails', auth: { customerId: 'C0A1B2C3D', firstName: 'Александра' }, details, page: 0 };
    const pages = Array.from({ length: renderer.pageCount(state) }, (_, page) => renderer.render({ ...state, page }).text);
    expect(pages.length).toBeGreaterThan(1);
    // In UCS-2 a page holds a few words of a detail: a label never ends a page, it starts with its value.
    const labelled = pages.flatMap((page) => page.split('\n')).filter((line) => /^(Customer ID|Name|E-mail|Phone):/.test(line));
    expect(labelled.map((line) => line.split(' ')[0])).toEqual(['Customer', 'Name:', 'E-mail:', 'Phone:']);
    for (const line of labelled) expect(line).toMatch(/^(Customer ID|Name|E-mail|Phone): \S/);
  });

  it('pages long information texts with 98 and back with 0', () => {
    const paged = new MenuRenderer(shipped.withInfoTexts({ en: { about: 'Clean stoves save fuel. '.repeat(40) } }));
    const first = settle(applyInput(walk(['1']), '1', paged), defaults);
    expect(paged.pageCount(first)).toBeGreaterThan(2);
    expect(paged.render(first).text).toContain('98. More');
    const second = settle(applyInput(first, '98', paged), defaults);
    expect(second.page).toBe(1);
    expect(settle(applyInput(second, '0', paged), defaults).page).toBe(0);
    let last = first;
    for (let page = 1; page < paged.pageCount(first); page += 1) last = settle(applyInput(last, '98', paged), defaults);
    expect(paged.render(last).text).not.toContain('98. More');
    expect(settle(applyInput(last, '98', paged), defaults).notice).toEqual({ kind: 'invalidChoice' });
  });
});

describe('every reachable screen fits on a handset', () => {
  // The name doubles as a delivery point and a note.
  const inputs = ['', '1', '2', '3', '4', '5', '6', '98', '0', '00', '*', '9', 'x', 'Bartholomew Alexandre Çelebi-Øvergård', 'a@b.co', '24680', '12345', '123', 'C0A1B2C3D'];
  const outcomes: Record<Effect['type'], EffectResult[]> = {
    holdPin: [{ type: 'held', heldPin: 'held-pin' }],
    matchPin: [
      { type: 'matched', match: true },
      { type: 'matched', match: false },
    ],
    createAccount: [{ type: 'created', customerId: 'CFFFFFFFF' }],
    verifyPin: [
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Bartholomew-Alexandre-Maximilian', language: null, pinVersion: 1 } },
      // A name outside GSM-7 would make the whole screen UCS-2 (80 characters).
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Ọlábísí-Àdùnní-Olúwaseun-Adébáyọ̀-Ọláníyọ̀nù', language: null, pinVersion: 1 } },
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Александра-Владимировна-Константинова', language: 'fr', pinVersion: 1 } },
      { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 2 } },
      { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 1 } },
      { type: 'verified', outcome: { kind: 'locked', minutes: 10080, justNow: true } },
      { type: 'verified', outcome: { kind: 'locked', minutes: 1, justNow: false } },
      { type: 'verified', outcome: { kind: 'busy' } },
    ],
    loadAccount: [
      {
        type: 'loaded',
        account: {
          customerId: 'CFFFFFFFF',
          // Characters outside GSM-7 switch the screen to UCS-2 (80 characters): details must page, not overflow.
          fullName: 'Ngozi Adaeze Ọkọnkwọ-Ìfẹ́oluwa Abímbọ́lá Olúwadámilọ́lá Àjàyí',
          email: `${'very.long.address'.repeat(3)}@example-domain.org`.slice(0, 80),
          phoneNumber: '+254700000001',
        },
      },
      { type: 'loaded', account: null },
    ],
    replacePin: [{ type: 'replaced', pinVersion: 2 }, { type: 'replaced', pinVersion: null }],
    setLanguage: [],
    loadCatalogue: [
      { type: 'catalogueLoaded', products: CATALOGUE, lastDeliveryPoint: 'Kibera Olympic, next to the blue kiosk' },
      { type: 'catalogueLoaded', products: [], lastDeliveryPoint: null },
    ],
    placeOrder: [
      { type: 'orderPlaced', order: { orderNumber: 'F999999999', totalMinor: 2_000_000_00, currency: 'KES' } },
      { type: 'orderPlaced', order: null },
    ],
    loadOrders: [
      {
        type: 'ordersLoaded',
        orders: Array.from({ length: 10 }, (_, index) => ({
          orderNumber: `F${String(999_990 + index)}`,
          placedAt: '2026-09-30T23:59:59.000Z',
          quantity: 20,
          kind: index % 2 === 0 ? 'briquettes' : 'charcoal',
          sizeKg: 12.5,
          status: (['placed', 'dispatched', 'delivered', 'cancelled'] as const)[index % 4]!,
        })),
      },
      { type: 'ordersLoaded', orders: [] },
    ],
    createTicket: [
      { type: 'ticketCreated', ticketNumber: 'T999999999' },
      { type: 'ticketCreated', ticketNumber: null },
    ],
  };

  function expand(step: Step): MenuState[] {
    if (!step.effect) return [step.state];
    const effect = step.effect;
    const results = effect.type === 'setLanguage' ? [{ type: 'languageSet' as const, language: effect.language }] : outcomes[effect.type];
    return results.flatMap((result) => expand(applyEffectResult(step.state, result)));
  }

  /** Every state reachable from the main menu of each language, with every input and every effect outcome. */
  function reachable(languages: Languages, paged: MenuRenderer): Map<string, MenuState> {
    const seen = new Map<string, MenuState>();
    const visit = (state: MenuState): void => {
      const key = JSON.stringify(state);
      if (!seen.has(key)) seen.set(key, state);
    };
    languages.codes.forEach((code) => visit(initialState(code)));
    // Map iteration visits entries added while iterating: a breadth-first walk without a queue to shift.
    for (const state of seen.values()) {
      for (const input of inputs) expand(applyInput(state, input, paged)).forEach(visit);
    }
    return seen;
  }

  function expectEveryScreenFits(languages: Languages, paged: MenuRenderer): { states: number; ucs2: number } {
    const seen = reachable(languages, paged);
    for (const code of languages.codes) {
      const screens = new Set([...seen.values()].filter((state) => state.language === code).map((state) => state.screen));
      expect([code, [...screens].sort()]).toEqual([code, [...SCREENS].sort()]);
    }
    let ucs2 = 0;
    for (const state of seen.values()) {
      const rendered = paged.render(state);
      const { used, limit } = screenCost(rendered.text);
      if (used > limit) throw new Error(`${state.language} ${state.screen} uses ${used}/${limit}: ${rendered.text}`);
      if (limit < GSM7_SCREEN_LIMIT) ucs2 += 1;
      const exit = `*. ${languages.get(state.language).text('nav.exit')}`;
      if (rendered.kind === 'CON' && state.screen !== 'preMenu') expect(rendered.text.endsWith(toGsm7(exit)) || rendered.text.endsWith(exit)).toBe(true);
    }
    return { states: seen.size, ucs2 };
  }

  const everywhere = (texts: Record<string, string>): InfoOverrides => Object.fromEntries(shipped.codes.map((code) => [code, texts]));

  it.each([
    ['the shipped content', {}],
    [
      '2000-character Know More texts',
      everywhere({ about: 'Ẹ kú àbọ̀! Karibu sana, ça va bien. '.repeat(55), pricing: 'x'.repeat(2000), delivery: 'Delivery everywhere. '.repeat(95) }),
    ],
  ])('in every language, with %s', (_label, overrides: InfoOverrides) => {
    const languages = shipped.withInfoTexts(overrides);
    const { states } = expectEveryScreenFits(languages, new MenuRenderer(languages));
    expect(states).toBeGreaterThan(5000);
  });

  it('in a language whose script has no GSM-7 form, where every screen is UCS-2 (80 characters)', () => {
    // Terse texts in Cyrillic, a long Know More text, and the shipped languages beside it.
    const cyrillic = Object.fromEntries(
      Object.entries(JSON.parse(readFileSync(join(CONTENT_DIRECTORY, 'en.json'), 'utf8')) as Record<string, string>).map(([key, value]) => [
        key,
        key.startsWith('info.') ? 'Чистая плита экономит топливо и время. '.repeat(20).trim() : ['Жд', ...(value.match(/\{[A-Za-z]+\}/g) ?? [])].join(' '),
      ]),
    );
    const languages = new Languages([...shipped.codes.map((code) => shipped.get(code)), new Language('ru', { ...cyrillic, 'language.latinName': 'Russkij' })]);
    const paged = new MenuRenderer(languages);
    const { ucs2 } = expectEveryScreenFits(languages, paged);
    expect(ucs2).toBeGreaterThan(50);
    expect(screenCost(paged.render({ screen: 'info', topic: 'about', language: 'ru' }).text)).toMatchObject({ limit: UCS2_SCREEN_LIMIT });
    expect(paged.pageCount({ screen: 'info', topic: 'about', language: 'ru' })).toBeGreaterThan(10);
    // The catalogue pages too, its products numbered across pages.
    const catalogue: MenuState = { screen: 'orderProduct', language: 'ru', catalogue: CATALOGUE, order: { lastDeliveryPoint: null }, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
    expect(paged.pageCount(catalogue)).toBeGreaterThan(1);
    expect(paged.render({ ...catalogue, page: paged.pageCount(catalogue) - 1 }).text).toContain('3. ');
    expect(applyInput(catalogue, '3', paged).state).toMatchObject({ screen: 'orderQuantity', order: { productCode: 'charcoal-12' } });
  });
});

describe('what a household does', () => {
  const home: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
  const withCatalogue = { ...defaults, loadCatalogue: { type: 'catalogueLoaded', products: CATALOGUE, lastDeliveryPoint: 'Kibera market' } } as const;

  it('orders fuel: product, quantity, delivery point, PIN, then the order number on an END screen', () => {
    const products = walk(['4'], withCatalogue, home);
    expect(text(products)).toBe(
      'CON Order fuel\n1. Pellets 10 kg: KES 250\n2. Pellets 25 kg: KES 600\n3. charcoal 12.5 kg: KES 99,999.99\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(text(walk(['2'], withCatalogue, products))).toBe('CON Pellets 25 kg\nHow many bags? (1-20)\n0. Back\n00. Main menu\n*. Exit');
    expect(walk(['2', '21'], withCatalogue, products).notice).toEqual({ kind: 'invalidQuantity' });
    const delivery = walk(['2', '3'], withCatalogue, products);
    expect(text(delivery)).toBe('CON Where should we deliver? (village, landmark)\n1. Kibera market\n0. Back\n00. Main menu\n*. Exit');
    expect(walk(['<>'], withCatalogue, delivery).notice).toEqual({ kind: 'invalidDeliveryPoint' });
    const confirm = walk(['1'], withCatalogue, delivery);
    expect(text(confirm)).toBe('CON 3 x Pellets 25 kg\nTotal: KES 1,800\nTo: Kibera market\nEnter your PIN to confirm\n0. Back\n00. Main menu\n*. Exit');
    expect(walk(['Gikomba, stall 12'], withCatalogue, delivery).order?.deliveryPoint).toBe('Gikomba, stall 12');

    const pinEntered = applyInput(confirm, '24680', renderer);
    expect(pinEntered.effect).toEqual({ type: 'verifyPin', customerId: 'C0A1B2C3D', pin: '24680' });
    const verified = applyEffectResult(pinEntered.state, { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: null, pinVersion: 1 } });
    expect(verified.effect).toEqual({ type: 'placeOrder', customerId: 'C0A1B2C3D', productCode: 'pellets-25kg', quantity: 3, deliveryPoint: 'Kibera market' });
    const placed = applyEffectResult(verified.state, { type: 'orderPlaced', order: { orderNumber: 'F000042', totalMinor: 180_000, currency: 'KES' } });
    expect(text(placed.state)).toBe('END Order F000042 placed: KES 1,800. We will call you before delivery.');
    expect(isAuthenticated(placed.state)).toBe(false);
    // The PIN went to the check and nowhere else.
    expect(JSON.stringify([verified, placed])).not.toContain('24680');
  });

  it('keeps the order on a wrong PIN, ends it on a lock, and goes back one step at a time', () => {
    const confirm = walk(['4', '1', '2', 'Kibera market'], withCatalogue, home);
    expect(confirm.screen).toBe('orderConfirm');
    const wrong = walk(['11111'], { ...withCatalogue, verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 2 } } }, confirm);
    expect(wrong).toMatchObject({ screen: 'orderConfirm', notice: { kind: 'wrongPin', attemptsLeft: 2 }, order: confirm.order });
    expect(text(wrong)).toMatch(/^CON Wrong PIN\. 2 tries left\.\n2 x Pellets 10 kg\nTotal: KES 500\n/);
    expect(walk(['11111'], { ...withCatalogue, verifyPin: { type: 'verified', outcome: { kind: 'locked', minutes: 15, justNow: true } } }, confirm)).toMatchObject({
      screen: 'ended',
      farewell: { kind: 'lockedNow' },
    });
    expect(walk(['0'], withCatalogue, confirm)).toMatchObject({ screen: 'orderDelivery', order: { productCode: 'pellets-10kg', quantity: 2 } });
    expect(walk(['0', '0'], withCatalogue, confirm)).toMatchObject({ screen: 'orderQuantity', order: { productCode: 'pellets-10kg' } });
    expect(walk(['0', '0', '0', '0'], withCatalogue, confirm)).toMatchObject({ screen: 'accountHome' });
    expect(walk(['4'], defaults, home)).toMatchObject({ screen: 'accountHome', notice: { kind: 'noProducts' } });
    // The product was withdrawn while the order was being put together.
    expect(walk(['24680'], { ...withCatalogue, placeOrder: { type: 'orderPlaced', order: null } }, confirm)).toMatchObject({
      screen: 'accountHome',
      notice: { kind: 'noProducts' },
    });
  });

  it('lists the latest orders, paged, in the session language', () => {
    const orders = Array.from({ length: 6 }, (_, index) => ({
      orderNumber: `F00004${index}`,
      placedAt: '2026-11-03T08:00:00.000Z',
      quantity: 2,
      kind: 'pellets',
      sizeKg: 10,
      status: 'dispatched' as const,
    }));
    const mine = walk(['5'], { ...defaults, loadOrders: { type: 'ordersLoaded', orders } }, home);
    expect(mine.screen).toBe('myOrders');
    expect(text(mine)).toMatch(/^CON My orders\nF000040 Nov 3: 2 x Pellets 10 kg, on its way\n/);
    expect(renderer.pageCount(mine)).toBeGreaterThan(1);
    expect(walk(['98'], defaults, mine).page).toBe(1);
    const french = walk(['5'], { ...defaults, loadOrders: { type: 'ordersLoaded', orders } }, { ...home, language: 'fr' });
    expect(text(french)).toMatch(/^CON Mes commandes\nF000040 3 nov\. : 2 x Granulés 10 kg, en route\n/);
    expect(text(walk(['5'], defaults, home))).toBe('CON My orders\nYou have no orders yet.\n0. Back\n00. Main menu\n*. Exit');
  });

  it('reports a stove problem with or without a note', () => {
    const categories = walk(['6'], defaults, home);
    expect(text(categories)).toBe(
      "CON Stove problem\n1. Won't light\n2. Too much smoke\n3. Broken part\n4. Other\n0. Back\n00. Main menu\n*. Exit",
    );
    const note = walk(['2'], defaults, categories);
    expect(text(note)).toBe('CON Add a short note (up to 80 characters)\n00. Skip\n0. Back\n*. Exit');
    expect(applyInput(note, '00', renderer).effect).toEqual({ type: 'createTicket', customerId: 'C0A1B2C3D', category: 'smoke', note: null });
    expect(applyInput(note, '  Smoke   when cooking ', renderer).effect).toEqual({
      type: 'createTicket',
      customerId: 'C0A1B2C3D',
      category: 'smoke',
      note: 'Smoke when cooking',
    });
    expect(walk(['x'.repeat(81)], defaults, note).notice).toEqual({ kind: 'invalidNote' });
    expect(text(walk(['00'], defaults, note))).toBe('END Thank you. Your ticket number is T000007. A technician will call you.');
    expect(walk(['5'], defaults, categories).notice).toEqual({ kind: 'invalidChoice' });
  });
});
