import { applyInput, initialState, MenuState } from '../menu-machine';
import { MenuRenderer } from '../menu-renderer';
import { defaults, renderer, settle, shipped, text, walk } from './flow-spec-kit';

describe('the pre-menu and Know More', () => {
  it('starts at the main menu with the spec options', () => {
    expect(text(initialState())).toBe(
      'CON Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n3. Language\n*. Exit',
    );
    expect(text(initialState('fr'))).toBe(
      'CON Bienvenue chez Clean Cooking\n1. En savoir plus\n2. Mon compte\n3. Langue\n*. Quitter',
    );
    expect(text(initialState('sw'))).toBe(
      'CON Karibu Clean Cooking\n1. Jifunze zaidi\n2. Akaunti\n3. Lugha\n*. Toka',
    );
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

  it('re-shows the screen with a hint on an invalid choice', () => {
    const state = walk(['1', '7']);
    expect(state.screen).toBe('knowMore');
    expect(text(state).startsWith('CON Invalid choice. Try again.\nKnow More\n')).toBe(true);
    // The hint is one-shot.
    expect(text(walk(['1', '7', '9', '0', '1'])).startsWith('CON Know More')).toBe(true);
  });

  it('pages long information texts with 98 and back with 0', () => {
    const paged = new MenuRenderer(
      shipped.withInfoTexts({ en: { about: 'Clean stoves save fuel. '.repeat(40) } }),
    );
    const first = settle(applyInput(walk(['1']), '1', paged), defaults);
    expect(paged.pageCount(first)).toBeGreaterThan(2);
    expect(paged.render(first).text).toContain('98. More');
    const second = settle(applyInput(first, '98', paged), defaults);
    expect(second.page).toBe(1);
    expect(settle(applyInput(second, '0', paged), defaults).page).toBe(0);
    let last = first;
    for (let page = 1; page < paged.pageCount(first); page += 1)
      last = settle(applyInput(last, '98', paged), defaults);
    expect(paged.render(last).text).not.toContain('98. More');
    expect(settle(applyInput(last, '98', paged), defaults).notice).toEqual({ kind: 'invalidChoice' });
  });

  it.each<[MenuState, Partial<MenuState>]>([
    [{ screen: 'preMenu' }, { screen: 'preMenu' }],
    [{ screen: 'knowMore' }, { screen: 'preMenu' }],
    [{ screen: 'info', topic: 'about', page: 0 }, { screen: 'knowMore' }],
    [
      { screen: 'info', topic: 'about', page: 2 },
      { screen: 'info', page: 1 },
    ],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
