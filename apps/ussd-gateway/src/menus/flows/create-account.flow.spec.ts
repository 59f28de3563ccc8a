import { applyEffectResult, applyInput, initialState, MenuState } from '../menu-machine';
import { defaults, renderer, text, walk } from './flow-spec-kit';

describe('account creation', () => {
  it('creates an account with and without e-mail', () => {
    const withEmail = walk(['2', '2', 'Zoë O’Brien-Núñez', 'zoe@example.org', '24680']);
    expect(withEmail).toMatchObject({
      screen: 'createPinConfirm',
      draft: { fullName: 'Zoë O’Brien-Núñez', email: 'zoe@example.org' },
    });
    const created = walk(['24680'], defaults, withEmail);
    expect(created).toMatchObject({
      screen: 'ended',
      farewell: { kind: 'accountCreated', customerId: 'C0A1B2C3D' },
    });
    expect(text(created)).toBe(
      'END Account created. Your Customer ID is C0A1B2C3D. Keep it safe: you need it and your PIN to log in.',
    );

    const skipped = walk(['2', '2', 'Jane Smith', '00']);
    expect(skipped).toMatchObject({ screen: 'createPin', draft: { fullName: 'Jane Smith', email: null } });
  });

  it('refuses bad names, e-mails, trivial and malformed PINs and mismatched confirmations', () => {
    expect(walk(['2', '2', 'J4ne']).notice).toEqual({ kind: 'invalidName' });
    expect(walk(['2', '2', 'Jane', 'not-an-email']).notice).toEqual({ kind: 'invalidEmail' });
    expect(walk(['2', '2', 'Jane', '00', '12345']).notice).toEqual({ kind: 'trivialPin' });
    expect(walk(['2', '2', 'Jane', '00', '00000']).notice).toEqual({ kind: 'trivialPin' });
    expect(walk(['2', '2', 'Jane', '00', '123']).notice).toEqual({ kind: 'invalidPin' });
    const mismatch = walk(['2', '2', 'Jane', '00', '24680', '13579'], {
      ...defaults,
      matchPin: { type: 'matched', match: false },
    });
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
    const changing = walk(['2', '24680', '97531'], defaults, {
      screen: 'accountHome',
      auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
    });
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
    [
      'en',
      'END The service is busy. Your account was not created. Please dial again in a minute.',
      'END The service is busy. Your PIN was not changed. Please dial again in a minute.',
    ],
    [
      'fr',
      "END Le service est occupé. Votre compte n'a pas été créé. Rappelez dans une minute.",
      "END Le service est occupé. Votre PIN n'a pas été changé. Rappelez dans une minute.",
    ],
    [
      'sw',
      'END Huduma ina shughuli nyingi. Akaunti yako haijafunguliwa. Tafadhali piga tena baada ya dakika moja.',
      'END Huduma ina shughuli nyingi. PIN yako haijabadilishwa. Tafadhali piga tena baada ya dakika moja.',
    ],
  ])(
    'ends an account creation and a PIN change the hash gate refused with the busy text (%s), signed out',
    (language, creation, change) => {
      const busy = {
        ...defaults,
        createAccount: { type: 'hashBusy' },
        replacePin: { type: 'hashBusy' },
      } as const;
      const created = walk(['2', '2', 'Jane Smith', '00', '24680', '24680'], busy, initialState(language));
      expect(created).toEqual({ screen: 'ended', language, farewell: { kind: 'pinHashBusyCreate' } });
      expect(text(created)).toBe(creation);
      const home: MenuState = {
        screen: 'accountHome',
        language,
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      };
      const changed = walk(['2', '24680', '97531', '97531'], busy, home);
      expect(changed).toEqual({ screen: 'ended', language, farewell: { kind: 'pinHashBusyChange' } });
      expect(text(changed)).toBe(change);
      // The gate's refusal belongs to those two screens only.
      expect(() => applyEffectResult(home, { type: 'hashBusy' })).toThrow(
        /does not belong to screen accountHome/,
      );
    },
  );

  it.each<[MenuState, Partial<MenuState>]>([
    [{ screen: 'createName', draft: {} }, { screen: 'accountMenu' }],
    [
      { screen: 'createEmail', draft: { fullName: 'Jane' } },
      { screen: 'createName', draft: {} },
    ],
    [
      { screen: 'createPin', draft: { fullName: 'Jane', email: null } },
      { screen: 'createEmail', draft: { fullName: 'Jane' } },
    ],
    [
      { screen: 'createPinConfirm', draft: { fullName: 'Jane', email: null, heldPin: 'held-pin' } },
      { screen: 'createPin', draft: { fullName: 'Jane', email: null } },
    ],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
