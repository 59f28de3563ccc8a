import { GSM7_SCREEN_LIMIT, screenCost, UCS2_SCREEN_LIMIT } from '../menus/screen-text';

/** What the simulator's page needs to measure a screen exactly as the renderer does. */
export interface ScreenMeterRules {
  /** Septets of every character the GSM-7 alphabet has (1, or 2 for the extension table). */
  septets: Array<[string, number]>;
  gsm7Limit: number;
  ucs2Limit: number;
}

/** Past the highest code point of the GSM-7 alphabet and its extension table (`€`, U+20AC). */
const HIGHEST_CANDIDATE = 0x20ff;

/**
 * The page's alphabet is read off the renderer's own `screenCost`, character by character, instead of being a
 * second copy of the GSM-7 tables: when the renderer's rules change, the page's change with them.
 */
export function screenMeterRules(): ScreenMeterRules {
  const septets: Array<[string, number]> = [];
  for (let codePoint = 0; codePoint <= HIGHEST_CANDIDATE; codePoint += 1) {
    if (codePoint >= 0xd800 && codePoint <= 0xdfff) continue;
    const char = String.fromCodePoint(codePoint);
    const cost = screenCost(char);
    if (cost.limit === GSM7_SCREEN_LIMIT) septets.push([char, cost.used]);
  }
  return { septets, gsm7Limit: GSM7_SCREEN_LIMIT, ucs2Limit: UCS2_SCREEN_LIMIT };
}

/**
 * The page's measuring function, as source: it runs in the browser, with `rules` from screenMeterRules(). The same
 * arithmetic as `screenCost`: one character outside the table makes the whole screen UCS-2, counted in characters.
 * Kept as text (not a compiled function's `toString()`) so that what the page runs is exactly what is tested.
 */
export const SCREEN_METER_SOURCE = `function meterScreen(text, rules) {
  var table = rules.table || (rules.table = new Map(rules.septets));
  var used = 0;
  for (var char of text) {
    var cost = table.get(char);
    if (cost === undefined) return { encoding: 'UCS-2', used: Array.from(text).length, limit: rules.ucs2Limit };
    used += cost;
  }
  return { encoding: 'GSM-7', used: used, limit: rules.gsm7Limit };
}`;

export interface ScreenMeasure {
  encoding: 'GSM-7' | 'UCS-2';
  used: number;
  limit: number;
}
