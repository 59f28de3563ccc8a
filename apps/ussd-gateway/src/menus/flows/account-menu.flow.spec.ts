import { applyInput, MenuState } from '../menu-machine';
import { defaults, renderer, text, walk } from './flow-spec-kit';

describe('the account menu and log-in', () => {
  it('counts down wrong PINs and ends the session when the account locks', () => {
    const wrong = walk(['2', '1', 'C0A1B2C3D', '11111'], {
      ...defaults,
      verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 2 } },
    });
    // At log-in the wording does not tell a wrong PIN from a Customer ID nobody has.
    expect(text(wrong)).toBe(
      'CON Customer ID or PIN is wrong. 2 tries left.\nEnter the 5-digit PIN for C0A1B2C3D\n0. Back\n00. Main menu\n*. Exit',
    );
    const locked = walk(
      ['11112'],
      {
        ...defaults,
        verifyPin: { type: 'verified', outcome: { kind: 'locked', minutes: 15, justNow: true } },
      },
      wrong,
    );
    expect(text(locked)).toBe('END Too many wrong PINs. Your account is locked for 15 minutes.');
    const home: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
    const wrongOld = walk(
      ['2', '11111'],
      { ...defaults, verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 1 } } },
      home,
    );
    expect(text(wrongOld)).toMatch(/^CON Wrong PIN\. 1 try left\.\nEnter your current PIN\n/);
    const busy = walk(['2', '1', 'C0A1B2C3D', '11111'], {
      ...defaults,
      verifyPin: { type: 'verified', outcome: { kind: 'busy' } },
    });
    expect(text(busy)).toMatch(
      /^CON Too many PIN attempts at once\. Try again\.\nEnter the 5-digit PIN for C0A1B2C3D\n/,
    );
  });

  it.each<[MenuState, Partial<MenuState>]>([
    [{ screen: 'accountMenu' }, { screen: 'preMenu' }],
    [{ screen: 'loginCustomerId' }, { screen: 'accountMenu' }],
    [{ screen: 'loginPin', loginCustomerId: 'C0A1B2C3D' }, { screen: 'loginCustomerId' }],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
