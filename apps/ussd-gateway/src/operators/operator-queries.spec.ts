import { InvalidInputError } from '@dmrv/errors';
import {
  cursorOf,
  dateOf,
  idOfCursor,
  isListLimit,
  LIST_LIMIT_DEFAULT,
  listQueryOf,
} from './operator-queries';

describe('operator list queries', () => {
  it.each([
    ['2026-11-01', '2026-11-01T00:00:00.000Z'],
    ['2026-11-01T10:00Z', '2026-11-01T10:00:00.000Z'],
    ['2026-11-01T23:59:59.999+03:00', '2026-11-01T20:59:59.999Z'],
    ['2028-02-29', '2028-02-29T00:00:00.000Z'],
  ])('reads %s as %s', (written, instant) => {
    expect(dateOf(written)?.toISOString()).toBe(instant);
  });

  it.each([
    '2026-02-30',
    '2026-02-29',
    '2026-02-30T10:00Z',
    '2026-11-01T24:30Z',
    '2026-11-01T10:00',
    'yesterday',
  ])('refuses %s: a day that does not exist, or no zone', (written) => {
    expect(dateOf(written)).toBeNull();
  });

  it('takes a bare `to` as the end of that day, and refuses `from` not before `to`', () => {
    expect(listQueryOf({ from: '2026-11-01', to: '2026-11-01' })).toEqual({
      limit: LIST_LIMIT_DEFAULT,
      from: new Date('2026-11-01T00:00:00Z'),
      to: new Date('2026-11-02T00:00:00Z'),
    });
    expect(() => listQueryOf({ from: '2026-11-02', to: '2026-11-01' })).toThrow(
      new InvalidInputError('from must be before to'),
    );
  });

  it('gives back the id of its own cursors only, in their one spelling', () => {
    expect(idOfCursor(cursorOf(42))).toBe(42);
    expect(listQueryOf({ cursor: cursorOf(7), limit: '5', status: 'open', phone: '+254700000001' })).toEqual({
      before: 7,
      limit: 5,
      status: 'open',
      phoneNumber: '+254700000001',
    });
    expect(idOfCursor('abc')).toBeNull();
    expect(idOfCursor(`${cursorOf(42)}=`)).toBeNull();
  });

  it.each([
    ['1', true],
    ['100', true],
    ['0', false],
    ['101', false],
    ['1.5', false],
    ['+5', false],
  ])('limit %s: %s', (written, accepted) => {
    expect(isListLimit(written)).toBe(accepted);
  });
});
