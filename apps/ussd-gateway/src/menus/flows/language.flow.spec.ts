import { applyInput, lockedOut, MenuState } from '../menu-machine';
import { defaults, renderer, settle, text, walk } from './flow-spec-kit';

describe('the language menu', () => {
  it('changes the language from the main menu and keeps it through sign-in, sign-out and the farewell', () => {
    const menu = walk(['3']);
    expect(text(menu)).toBe(
      'CON Choose your language\n1. English\n2. Français\n3. Kiswahili\n0. Back\n*. Exit',
    );
    const chosen = applyInput(menu, '3', renderer);
    expect(chosen.effect).toEqual({ type: 'setLanguage', language: 'sw', customerId: null });
    const swahili = settle(chosen, { setLanguage: { type: 'languageSet', language: 'sw' } });
    expect(text(swahili)).toBe(
      'CON Lugha: Kiswahili.\nKaribu Clean Cooking\n1. Jifunze zaidi\n2. Akaunti\n3. Lugha\n*. Toka',
    );
    expect(walk(['9', '0'], defaults, swahili)).toMatchObject({ screen: 'preMenu', language: 'sw' });
    const home = walk(['2', '1', 'C0A1B2C3D', '24680'], defaults, swahili);
    expect(home).toMatchObject({ screen: 'accountHome', language: 'sw' });
    // An account that chose a language gets it whatever the phone's.
    const french = walk(
      ['2', '1', 'C0A1B2C3D', '24680'],
      {
        ...defaults,
        verifyPin: {
          type: 'verified',
          outcome: { kind: 'ok', firstName: 'Jane', language: 'fr', pinVersion: 1 },
        },
      },
      swahili,
    );
    expect(french).toMatchObject({ screen: 'accountHome', language: 'fr' });
    expect(applyInput(walk(['00', '3'], defaults, french), '1', renderer).effect).toEqual({
      type: 'setLanguage',
      language: 'en',
      customerId: 'C0A1B2C3D',
    });
    expect(walk(['3'], defaults, home)).toMatchObject({
      screen: 'preMenu',
      language: 'sw',
      notice: { kind: 'loggedOut' },
    });
    expect(text(walk(['*'], defaults, home))).toBe('END Asante kwa kutumia huduma yetu. Kwaheri!');
    expect(text(lockedOut(2, 'fr'))).toBe(
      'END Votre compte est bloqué après trop de PIN incorrects. Réessayez dans 2 minutes.',
    );
    expect(walk(['3', '4'])).toMatchObject({ screen: 'language', notice: { kind: 'invalidChoice' } });
  });

  it.each<[MenuState, Partial<MenuState>]>([[{ screen: 'language' }, { screen: 'preMenu' }]])(
    'goes back with 0 from %j',
    (from, to) => {
      expect(applyInput(from, '0', renderer).state).toMatchObject(to);
    },
  );
});
