import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InfoOverrides } from './content';
import { CONTENT_DIRECTORY, Language, Languages, loadLanguages } from './languages';
import {
  applyEffectResult,
  applyInput,
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
  verifyPin: { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: null } },
  loadAccount: { type: 'loaded', account: { customerId: 'C0A1B2C3D', fullName: 'Jane Smith', email: null, phoneNumber: '+254700000001' } },
  replacePin: { type: 'replaced' },
};

function walk(inputs: string[], results = defaults, from = initialState()): MenuState {
  return inputs.reduce((state, input) => settle(applyInput(state, input, renderer), results), from);
}

const text = (state: MenuState): string => {
  const screen = renderer.render(state);
  return `${screen.kind} ${screen.text}`;
};

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
    const french = walk(['2', '1', 'C0A1B2C3D', '24680'], { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: 'fr' } } }, swahili);
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
    });
    const changing = walk(['2', '24680', '97531'], defaults, { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } });
    expect(changing).toMatchObject({ screen: 'changePinConfirm', draft: { heldPin: 'held-pin' } });
    const changed = applyInput(changing, '97531', renderer);
    expect(applyEffectResult(changed.state, { type: 'matched', match: true }).effect).toEqual({ type: 'replacePin', customerId: 'C0A1B2C3D', heldPin: 'held-pin' });
  });

  it('logs in, shows details, changes the PIN and logs out', () => {
    const home = walk(['2', '1', 'c0a1b2c3d', '24680']);
    expect(home).toEqual({ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } });
    expect(walk(['1'], defaults, home)).toMatchObject({ screen: 'accountDetails', auth: home.auth });
    const changed = walk(['2', '24680', '97531', '97531'], defaults, home);
    expect(changed).toMatchObject({ screen: 'accountHome', notice: { kind: 'pinChanged' } });
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

  it('keeps a signed-in screen on one handset screen whatever the name', () => {
    const home = (firstName: string, notice?: MenuState['notice']): string =>
      renderer.render({ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName }, notice }).text;
    expect(home('Jane')).toMatch(/^Welcome, Jane\n/);
    expect(home('Ọlá', { kind: 'pinChanged' })).toMatch(/^Your PIN has been changed\.\nWelcome, Ola\n/);
    expect(home('Александра', { kind: 'pinChanged' })).toMatch(/^Your PIN has been changed\.\nWelcome\n/);
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
  const inputs = ['', '1', '2', '3', '98', '0', '00', '*', '9', 'x', 'Bartholomew Alexandre Çelebi-Øvergård', 'a@b.co', '24680', '12345', '123', 'C0A1B2C3D'];
  const outcomes: Record<Effect['type'], EffectResult[]> = {
    holdPin: [{ type: 'held', heldPin: 'held-pin' }],
    matchPin: [
      { type: 'matched', match: true },
      { type: 'matched', match: false },
    ],
    createAccount: [{ type: 'created', customerId: 'CFFFFFFFF' }],
    verifyPin: [
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Bartholomew-Alexandre-Maximilian', language: null } },
      // A name outside GSM-7 would make the whole screen UCS-2 (80 characters).
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Ọlábísí-Àdùnní-Olúwaseun-Adébáyọ̀-Ọláníyọ̀nù', language: null } },
      { type: 'verified', outcome: { kind: 'ok', firstName: 'Александра-Владимировна-Константинова', language: 'fr' } },
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
    replacePin: [{ type: 'replaced' }],
    setLanguage: [],
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
    const queue: MenuState[] = languages.codes.map((code) => initialState(code));
    while (queue.length > 0) {
      const state = queue.shift()!;
      const key = JSON.stringify(state);
      if (seen.has(key)) continue;
      seen.set(key, state);
      for (const input of inputs) queue.push(...expand(applyInput(state, input, paged)));
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
    expect(states).toBeGreaterThan(150);
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
  });
});
