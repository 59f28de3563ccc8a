import { applyInput, MenuState } from '../menu-machine';
import { defaults, renderer, text, walk } from './flow-spec-kit';

describe('the signed-in menu, details, PIN change and log-out', () => {
  it('logs in, shows details, changes the PIN and logs out', () => {
    const home = walk(['2', '1', 'c0a1b2c3d', '24680']);
    expect(home).toEqual({
      screen: 'accountHome',
      auth: { customerId: 'C0A1B2C3D', firstName: 'Jane', pinVersion: 1 },
    });
    expect(walk(['1'], defaults, home)).toMatchObject({ screen: 'accountDetails', auth: home.auth });
    const changed = walk(['2', '24680', '97531', '97531'], defaults, home);
    // The session that changed the PIN keeps itself signed in under the new version.
    expect(changed).toMatchObject({
      screen: 'accountHome',
      notice: { kind: 'pinChanged' },
      auth: { pinVersion: 2 },
    });
    // Another session's change came first: nothing written, and the session ends saying so.
    const stale = walk(
      ['2', '24680', '97531', '97531'],
      { ...defaults, replacePin: { type: 'replaced', pinVersion: null } },
      home,
    );
    expect(text(stale)).toBe(
      'END Your PIN was not changed: it was changed in another session. Please dial again and log in.',
    );
    const out = walk(['3'], defaults, home);
    expect(out).toEqual({ screen: 'preMenu', notice: { kind: 'loggedOut' } });
    expect(walk(['00', '2'], defaults, home).screen).toBe('accountHome');
  });

  it('keeps a signed-in screen on one handset screen whatever the name, paging the options when the name takes the room', () => {
    const home = (firstName: string, notice?: MenuState['notice'], page?: number): string =>
      renderer.render({ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName }, notice, page })
        .text;
    expect(home('Jane')).toMatch(/^Welcome, Jane\n/);
    expect(home('Ọlá', { kind: 'pinChanged' })).toMatch(/^Your PIN has been changed\.\nWelcome, Ola\n/);
    // A name without a GSM-7 form makes the screen UCS-2 (80 characters): the name stays, the options go on with 98.
    expect(home('Александра')).toBe(
      'Welcome, Александра\n1. Account details\n2. Change PIN\n98. More\n0. Back\n*. Exit',
    );
    expect(home('Александра', undefined, 1)).toBe(
      '3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit',
    );
    // A hint and the name do not both fit beside an option: the hint wins, the pages stay as they are.
    expect(home('Александра', { kind: 'pinChanged' })).toBe(
      'Your PIN has been changed.\nWelcome\n1. Account details\n2. Change PIN\n98. More\n0. Back\n*. Exit',
    );
    expect(home('Александра', { kind: 'invalidChoice' }, 1)).toBe(
      'Invalid choice. Try again.\n3. Log out\n4. Order fuel\n5. My orders\n6. Report a stove problem\n0. Back\n*. Exit',
    );
    const signedIn: MenuState = {
      screen: 'accountHome',
      auth: { customerId: 'C0A1B2C3D', firstName: 'Александра' },
    };
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
    expect(
      walk(['98'], defaults, { ...signedIn, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } }).notice,
    ).toEqual({ kind: 'invalidChoice' });
  });

  it('pages the details between lines, then between words; only a word longer than a page is cut (issue 32)', () => {
    const pagesOf = (
      fullName: string,
      email: string | null,
      language = 'en',
      notice?: MenuState['notice'],
    ) => {
      const details = { customerId: 'C0A1B2C3D', fullName, email, phoneNumber: '+254*******78' };
      const state: MenuState = {
        screen: 'accountDetails',
        language,
        auth: { customerId: 'C0A1B2C3D', firstName: 'Александра' },
        details,
        page: 0,
      };
      return Array.from(
        { length: renderer.pageCount(state) },
        (_, page) => renderer.render({ ...state, page, ...(notice ? { notice } : {}) }).text,
      );
    };
    const more = '98. More\n0. Back\n00. Main menu\n*. Exit';
    const last = '0. Back\n00. Main menu\n*. Exit';
    // A UCS-2 page of this screen holds 28 characters beside its title: the name stays whole with its label.
    expect(pagesOf('Александра Петрова', null)).toEqual([
      `Your account\nCustomer ID: C0A1B2C3D\n${more}`,
      `Your account\nName: Александра Петрова\n${more}`,
      `Your account\nE-mail: none\nPhone: +254*******78\n${last}`,
    ]);
    const long = [
      'Александра Владимировна Петрова-Сидорова',
      'aleksandra.vladimirovna.petrova@example-domain.org',
    ] as const;
    expect(pagesOf(...long)).toEqual([
      `Your account\nCustomer ID: C0A1B2C3D\n${more}`,
      `Your account\nName: Александра\n${more}`,
      `Your account\nВладимировна\n${more}`,
      `Your account\nПетрова-Сидорова\n${more}`,
      `Your account\nE-mail: aleksandra.vladimirovna.petrova@example-domain.org\nPhone: +254*******78\n${last}`,
    ]);
    // French and Swahili frame the page with longer words: it still holds every word whole (it held three letters
    // when pages were cut with room for the longest hint).
    const bodies = (pages: string[]) => pages.map((page) => page.split('\n').slice(1, -3).join('\n'));
    expect(bodies(pagesOf('Александра Петрова', null, 'fr'))).toEqual([
      'Numéro client : C0A1B2C3D\n98. Suite',
      'Nom : Александра\n98. Suite',
      'Петрова\n98. Suite',
      'E-mail : aucun\nTéléphone : +254*******78',
    ]);
    expect(bodies(pagesOf('Александра Петрова', null, 'sw'))).toEqual([
      'Nambari ya mteja: C0A1B2C3D\n98. Zaidi',
      'Jina: Александра Петрова\n98. Zaidi',
      'Barua pepe: hakuna\nSimu: +254*******78',
    ]);
    for (const language of ['en', 'fr', 'sw'])
      for (const word of long[0].split(' '))
        expect(bodies(pagesOf(...long, language)).some((page) => page.includes(word))).toBe(true);
    // A hint takes the title's place where it fits beside the page; where it does not, the page keeps its title.
    expect(pagesOf(...long, 'fr', { kind: 'invalidChoice' }).map((page) => page.split('\n')[0])).toEqual([
      'Choix invalide. Réessayez.',
      'Votre compte',
      'Votre compte',
      'Votre compte',
      'Choix invalide. Réessayez.',
    ]);
    // In GSM-7 every detail fits whole.
    expect(pagesOf('Jane Wanjiku Otieno', 'jane@example.org')).toEqual([
      `Your account\nCustomer ID: C0A1B2C3D\nName: Jane Wanjiku Otieno\nE-mail: jane@example.org\nPhone: +254*******78\n${last}`,
    ]);
  });

  it.each<[MenuState, Partial<MenuState>]>([
    [{ screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } }, { screen: 'preMenu' }],
    [
      { screen: 'accountHome', page: 1, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome', page: 0 },
    ],
    [
      { screen: 'accountDetails', page: 0, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome' },
    ],
    [
      { screen: 'changePinOld', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome' },
    ],
    [
      { screen: 'changePinNew', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome' },
    ],
    [
      {
        screen: 'changePinConfirm',
        draft: { heldPin: 'held-pin' },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      { screen: 'changePinNew' },
    ],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
