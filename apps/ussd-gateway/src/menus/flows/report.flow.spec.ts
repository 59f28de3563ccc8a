import { applyInput, MenuState } from '../menu-machine';
import { defaults, renderer, text, walk } from './flow-spec-kit';

const home: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };

describe('reporting a stove problem', () => {
  it('reports a stove problem with or without a note', () => {
    const categories = walk(['6'], defaults, home);
    expect(text(categories)).toBe(
      "CON Stove problem\n1. Won't light\n2. Too much smoke\n3. Broken part\n4. Other\n0. Back\n00. Main menu\n*. Exit",
    );
    const note = walk(['2'], defaults, categories);
    expect(text(note)).toBe('CON Add a short note (up to 80 characters)\n00. Skip\n0. Back\n*. Exit');
    expect(applyInput(note, '00', renderer).effect).toEqual({
      type: 'createTicket',
      customerId: 'C0A1B2C3D',
      category: 'smoke',
      note: null,
    });
    expect(applyInput(note, '  Smoke   when cooking ', renderer).effect).toEqual({
      type: 'createTicket',
      customerId: 'C0A1B2C3D',
      category: 'smoke',
      note: 'Smoke when cooking',
    });
    expect(walk(['x'.repeat(81)], defaults, note).notice).toEqual({ kind: 'invalidNote' });
    expect(text(walk(['00'], defaults, note))).toBe(
      'END Thank you. Your ticket number is T000007. A technician will call you.',
    );
    expect(walk(['5'], defaults, categories).notice).toEqual({ kind: 'invalidChoice' });
  });

  it.each<[MenuState, Partial<MenuState>]>([
    [
      { screen: 'reportCategory', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome' },
    ],
    [
      {
        screen: 'reportNote',
        report: { category: 'smoke' },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      { screen: 'reportCategory' },
    ],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
