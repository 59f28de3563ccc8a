import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InfoOverrides } from './content';
import { CONTENT_DIRECTORY, Language, Languages } from './languages';
import { GSM7_SCREEN_LIMIT, screenCost, toGsm7, UCS2_SCREEN_LIMIT } from './screen-text';
import {
  afterStep,
  applyEffectResult,
  applyInput,
  Effect,
  EffectResult,
  heldToPinVersion,
  initialState,
  isAuthenticated,
  lockedOut,
  MenuState,
  SCREENS,
  Step,
} from './menu-machine';
import { MenuRenderer } from './menu-renderer';
import { CATALOGUE, defaults, renderer, settle, shipped, text, walk } from './flows/flow-spec-kit';

describe('menu machine: what every screen shares', () => {
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

  it('ends a signed-in session, signed out, when its account is found locked', () => {
    const state = lockedOut(7);
    expect(isAuthenticated(state)).toBe(false);
    expect(text(state)).toBe('END Your account is locked after too many wrong PINs. Try again in 7 minutes.');
    expect(applyInput(state, '1', renderer).state).toEqual(state);
  });
});

describe('menu machine: a PIN changed in another session', () => {
  const PIN_CHANGED_ELSEWHERE = 'END Your PIN was changed in another session. Please dial again and log in.';
  const auth = { customerId: 'C0A1B2C3D', firstName: 'Jane', pinVersion: 1 };
  const signedIn = (screen: MenuState['screen']): MenuState => ({
    screen,
    auth,
    draft: { heldPin: 'held-pin' },
    page: 0,
  });
  const signedInScreens = SCREENS.filter((screen) => screen !== 'ended');

  it("ends every signed-in screen whose PIN version is older than the account's, whatever the input", () => {
    for (const screen of signedInScreens) {
      for (const input of ['1', '0', '00', '*', 'abc', undefined]) {
        if (screen === 'changePinConfirm' && input === undefined) continue;
        const state = heldToPinVersion(signedIn(screen), 2, input);
        expect({ screen, input, text: text(state), signedIn: isAuthenticated(state) }).toEqual({
          screen,
          input,
          text: PIN_CHANGED_ELSEWHERE,
          signedIn: false,
        });
      }
    }
  });

  it('lets a PIN through to the confirmation of its own change only: the compare-and-set decides', () => {
    expect(heldToPinVersion(signedIn('changePinConfirm'), 2, '58316')).toEqual(signedIn('changePinConfirm'));
    expect(text(heldToPinVersion(signedIn('changePinNew'), 2, '58316'))).toBe(PIN_CHANGED_ELSEWHERE);
  });

  it("keeps a session whose version is the account's, or whose account could not be read", () => {
    expect(heldToPinVersion(signedIn('accountDetails'), 1, '1')).toEqual(signedIn('accountDetails'));
    expect(heldToPinVersion(signedIn('accountDetails'), null, '1')).toEqual(signedIn('accountDetails'));
    const beforeVersions: MenuState = {
      screen: 'accountHome',
      auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
    };
    expect(heldToPinVersion(beforeVersions, 2, '1')).toEqual(beforeVersions);
  });

  it('ends whatever screen a step reaches with the old version: back, main menu, a mismatched confirmation', () => {
    for (const [input, result] of [
      ['0', undefined],
      ['00', undefined],
      ['12345', { type: 'matched', match: false }],
    ] as const) {
      const before = signedIn('changePinConfirm');
      const applied = applyInput(before, input, renderer);
      const after = result ? applyEffectResult(applied.state, result).state : applied.state;
      expect(isAuthenticated(after)).toBe(true);
      const checked = afterStep(before, after, 2);
      expect({ input, text: text(checked.state), standing: checked.standing }).toEqual({
        input,
        text: PIN_CHANGED_ELSEWHERE,
        standing: 2,
      });
    }
  });

  it("takes a version the step read from the database as the account's: the session's own change, a log-in", () => {
    const before = signedIn('changePinConfirm');
    const changed = applyEffectResult(before, { type: 'replaced', pinVersion: 3 }).state;
    expect(afterStep(before, changed, 1)).toEqual({ state: changed, standing: 3 });
    const loggedIn = { ...signedIn('accountHome'), auth: { ...auth, pinVersion: 4 } };
    expect(afterStep({ screen: 'loginPin', loginCustomerId: auth.customerId }, loggedIn, null)).toEqual({
      state: loggedIn,
      standing: 4,
    });
  });
});

describe('every reachable screen fits on a handset', () => {
  // The name doubles as a delivery point and a note.
  const inputs = [
    '',
    '1',
    '2',
    '3',
    '4',
    '5',
    '6',
    '98',
    '0',
    '00',
    '*',
    '9',
    'x',
    'Bartholomew Alexandre Çelebi-Øvergård',
    'a@b.co',
    '24680',
    '12345',
    '123',
    'C0A1B2C3D',
  ];
  const outcomes: Record<Effect['type'], EffectResult[]> = {
    holdPin: [{ type: 'held', heldPin: 'held-pin' }],
    matchPin: [
      { type: 'matched', match: true },
      { type: 'matched', match: false },
    ],
    createAccount: [{ type: 'created', customerId: 'CFFFFFFFF' }],
    verifyPin: [
      {
        type: 'verified',
        outcome: { kind: 'ok', firstName: 'Bartholomew-Alexandre-Maximilian', language: null, pinVersion: 1 },
      },
      // A name outside GSM-7 would make the whole screen UCS-2 (80 characters).
      {
        type: 'verified',
        outcome: {
          kind: 'ok',
          firstName: 'Ọlábísí-Àdùnní-Olúwaseun-Adébáyọ̀-Ọláníyọ̀nù',
          language: null,
          pinVersion: 1,
        },
      },
      {
        type: 'verified',
        outcome: {
          kind: 'ok',
          firstName: 'Александра-Владимировна-Константинова',
          language: 'fr',
          pinVersion: 1,
        },
      },
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
    replacePin: [
      { type: 'replaced', pinVersion: 2 },
      { type: 'replaced', pinVersion: null },
    ],
    setLanguage: [],
    loadCatalogue: [
      {
        type: 'catalogueLoaded',
        products: CATALOGUE,
        lastDeliveryPoint: 'Kibera Olympic, next to the blue kiosk',
      },
      { type: 'catalogueLoaded', products: [], lastDeliveryPoint: null },
    ],
    placeOrder: [
      {
        type: 'orderPlaced',
        order: { orderNumber: 'F999999999', totalMinor: 2_000_000_00, currency: 'KES' },
      },
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
    const results =
      effect.type === 'setLanguage'
        ? [{ type: 'languageSet' as const, language: effect.language }]
        : outcomes[effect.type];
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

  function expectEveryScreenFits(
    languages: Languages,
    paged: MenuRenderer,
  ): { states: number; ucs2: number } {
    const seen = reachable(languages, paged);
    for (const code of languages.codes) {
      const screens = new Set(
        [...seen.values()].filter((state) => state.language === code).map((state) => state.screen),
      );
      expect([code, [...screens].sort()]).toEqual([code, [...SCREENS].sort()]);
    }
    let ucs2 = 0;
    for (const state of seen.values()) {
      const rendered = paged.render(state);
      const { used, limit } = screenCost(rendered.text);
      if (used > limit)
        throw new Error(`${state.language} ${state.screen} uses ${used}/${limit}: ${rendered.text}`);
      if (limit < GSM7_SCREEN_LIMIT) ucs2 += 1;
      const exit = `*. ${languages.get(state.language).text('nav.exit')}`;
      if (rendered.kind === 'CON' && state.screen !== 'preMenu')
        expect(rendered.text.endsWith(toGsm7(exit)) || rendered.text.endsWith(exit)).toBe(true);
    }
    return { states: seen.size, ucs2 };
  }

  const everywhere = (texts: Record<string, string>): InfoOverrides =>
    Object.fromEntries(shipped.codes.map((code) => [code, texts]));

  it.each([
    ['the shipped content', {}],
    [
      '2000-character Know More texts',
      everywhere({
        about: 'Ẹ kú àbọ̀! Karibu sana, ça va bien. '.repeat(55),
        pricing: 'x'.repeat(2000),
        delivery: 'Delivery everywhere. '.repeat(95),
      }),
    ],
  ])('in every language, with %s', (_label, overrides: InfoOverrides) => {
    const languages = shipped.withInfoTexts(overrides);
    const { states } = expectEveryScreenFits(languages, new MenuRenderer(languages));
    expect(states).toBeGreaterThan(5000);
  });

  it('in a language whose script has no GSM-7 form, where every screen is UCS-2 (80 characters)', () => {
    // Terse texts in Cyrillic, a long Know More text, and the shipped languages beside it.
    const cyrillic = Object.fromEntries(
      Object.entries(
        JSON.parse(readFileSync(join(CONTENT_DIRECTORY, 'en.json'), 'utf8')) as Record<string, string>,
      ).map(([key, value]) => [
        key,
        key.startsWith('info.')
          ? 'Чистая плита экономит топливо и время. '.repeat(20).trim()
          : ['Жд', ...(value.match(/\{[A-Za-z]+\}/g) ?? [])].join(' '),
      ]),
    );
    const languages = new Languages([
      ...shipped.codes.map((code) => shipped.get(code)),
      new Language('ru', { ...cyrillic, 'language.latinName': 'Russkij' }),
    ]);
    const paged = new MenuRenderer(languages);
    const { ucs2 } = expectEveryScreenFits(languages, paged);
    expect(ucs2).toBeGreaterThan(50);
    expect(screenCost(paged.render({ screen: 'info', topic: 'about', language: 'ru' }).text)).toMatchObject({
      limit: UCS2_SCREEN_LIMIT,
    });
    expect(paged.pageCount({ screen: 'info', topic: 'about', language: 'ru' })).toBeGreaterThan(10);
    // The catalogue pages too, its products numbered across pages.
    const catalogue: MenuState = {
      screen: 'orderProduct',
      language: 'ru',
      catalogue: CATALOGUE,
      order: { lastDeliveryPoint: null },
      auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
    };
    expect(paged.pageCount(catalogue)).toBeGreaterThan(1);
    expect(paged.render({ ...catalogue, page: paged.pageCount(catalogue) - 1 }).text).toContain('3. ');
    expect(applyInput(catalogue, '3', paged).state).toMatchObject({
      screen: 'orderQuantity',
      order: { productCode: 'charcoal-12' },
    });
  });
});
