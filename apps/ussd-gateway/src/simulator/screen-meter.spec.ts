import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { GSM7_SCREEN_LIMIT, screenCost, UCS2_SCREEN_LIMIT } from '../menus/screen-text';
import { SCREEN_METER_SOURCE, ScreenMeasure, screenMeterRules } from './screen-meter';

type Meter = (text: string, rules: object) => ScreenMeasure;

/** The page's function, evaluated from the very source the page carries, in a context of its own (as a browser). */
const meterScreen = runInNewContext(`(${SCREEN_METER_SOURCE})`) as Meter;
const rules = screenMeterRules();
const gsm7Chars = rules.septets.map(([char]) => char);

/** The measure as the page reports it, against the renderer's: the same encoding, count and limit. */
function expectSameMeasure(text: string): void {
  const { used, limit } = screenCost(text);
  expect({ ...meterScreen(text, { ...rules }) }).toEqual({
    encoding: limit === GSM7_SCREEN_LIMIT ? 'GSM-7' : 'UCS-2',
    used,
    limit,
  });
}

describe('the simulator page measures screens as the renderer does', () => {
  it('reads the whole GSM-7 alphabet off the renderer: the 127 characters of the basic table (its 128 codes less the escape) and the 10 of the extension table', () => {
    expect(rules.septets.filter(([, septets]) => septets === 1)).toHaveLength(127);
    expect(
      rules.septets
        .filter(([, septets]) => septets === 2)
        .map(([char]) => char)
        .sort()
        .join(''),
    ).toBe([...'^{}\\[~]|€\f'].sort().join(''));
    expect(rules).toMatchObject({ gsm7Limit: GSM7_SCREEN_LIMIT, ucs2Limit: UCS2_SCREEN_LIMIT });
  });

  it.each([
    ['an empty screen', ''],
    ['a menu', 'Welcome to Clean Cooking\n1. Know More\n2. Account Menu\n*. Exit'],
    ['extension characters (two septets each)', 'Price: 100€ [10 kg] {bag} ~ ^ | \\'],
    ['a character outside GSM-7 (the whole screen is UCS-2)', 'Karibu, Ọlá'],
    ['an emoji (one character, as the renderer counts)', 'Asante 🙏'],
    ['Swahili and French in GSM-7', 'Habari! Bienvenue à Clean Cooking: é è ù ì ò Ç'],
  ])('%s', (_label, text) => expectSameMeasure(text));

  it('agrees on any text (property-based)', () => {
    const text = fc.oneof(
      fc.array(fc.constantFrom(...gsm7Chars), { maxLength: 200 }).map((chars) => chars.join('')),
      fc.string({ unit: 'grapheme', maxLength: 120 }),
      fc
        .tuple(
          fc.array(fc.constantFrom(...gsm7Chars), { maxLength: 100 }),
          fc.string({ unit: 'binary', maxLength: 5 }),
        )
        .map(([chars, other]) => chars.join('') + other),
    );
    fc.assert(
      fc.property(text, (value) => expectSameMeasure(value)),
      { numRuns: 200 },
    );
  });
});
