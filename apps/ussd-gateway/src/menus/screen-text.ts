/**
 * How much text one USSD screen holds. The aggregator sends 182 GSM-7 septets; one character outside the GSM-7
 * alphabet switches the whole message to UCS-2, where the same 160 bytes hold 80 characters. Characters of the
 * GSM-7 extension table take two septets.
 */
export const GSM7_SCREEN_LIMIT = 182;
export const UCS2_SCREEN_LIMIT = 80;

const GSM7_BASIC =
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?' +
  '¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà';
const GSM7_EXTENSION = '^{}\\[~]|€\f';

const basic = new Set(GSM7_BASIC);
const extension = new Set(GSM7_EXTENSION);

/** Cost of the text on a screen, in the unit of its encoding, and that encoding's limit. */
export function screenCost(text: string): { used: number; limit: number } {
  let septets = 0;
  for (const char of text) {
    if (basic.has(char)) septets += 1;
    else if (extension.has(char)) septets += 2;
    else return { used: [...text].length, limit: UCS2_SCREEN_LIMIT };
  }
  return { used: septets, limit: GSM7_SCREEN_LIMIT };
}

export function fitsOnScreen(text: string): boolean {
  const { used, limit } = screenCost(text);
  return used <= limit;
}

const LOOKALIKES: Record<string, string> = { œ: 'oe', Œ: 'OE', '’': "'", '‘': "'", '«': '"', '»': '"', '–': '-', '—': '-', '…': '...' };

/**
 * `text` with every character outside GSM-7 replaced by its nearest GSM-7 form where there is one (`ç` → `c`,
 * `ê` → `e`, `Ọ` → `O`, `œ` → `oe`); characters without one (Cyrillic, Ethiopic) are left as they are.
 */
export function toGsm7(text: string): string {
  let folded = '';
  for (const char of text) {
    if (basic.has(char) || extension.has(char)) {
      folded += char;
      continue;
    }
    const bare = char.normalize('NFD').replace(/\p{M}/gu, '');
    folded += [...bare].every((part) => basic.has(part)) && bare !== '' ? bare : (LOOKALIKES[char] ?? char);
  }
  return folded;
}

/**
 * What is sent for `text`: as written when it fits, else its GSM-7 form. One `ê` in a French screen would switch the
 * whole screen to UCS-2 and its 80 characters; the same screen without that accent holds 182, which is how
 * francophone USSD services write anyway.
 */
export function screenText(text: string): string {
  return fitsOnScreen(text) ? text : toGsm7(text);
}

/**
 * A label (`Name:`, `Nom :`) is joined to the word after it, so that a page never ends on a label whose value starts
 * the next page.
 */
function withLabelsKept(words: string[]): string[] {
  const kept: string[] = [];
  let pending = '';
  for (const word of words) {
    const joined = pending + word;
    if (/:\s$/u.test(word) && !/\n$/u.test(word)) pending = joined;
    else {
      kept.push(joined);
      pending = '';
    }
  }
  if (pending !== '') kept.push(pending);
  return kept;
}

/**
 * Splits `body` into the fewest pages such that `frame(page, index, isLast)` fits on a screen, breaking between
 * words (a word longer than a page is cut), a label kept with the start of its value. `frame` adds the lines around the body (title, navigation), so the
 * navigation lines are counted before the body is cut, never appended after.
 */
export function paginate(body: string, frame: (page: string, index: number, isLast: boolean) => string): string[] {
  const words = withLabelsKept(body.split(/(?<=\s)/u));
  const pages: string[] = [];
  let current = '';
  const fitting = (text: string): boolean => fitsOnScreen(screenText(text));
  const fits = (candidate: string): boolean =>
    fitting(frame(candidate.trimEnd(), pages.length, false)) && fitting(frame(candidate.trimEnd(), pages.length, true));
  for (const word of words) {
    if (fits(current + word)) {
      current += word;
      continue;
    }
    if (current.trim() !== '') {
      pages.push(current.trimEnd());
      current = '';
    }
    let rest = word;
    while (!fits(rest)) {
      let cut = [...rest].length - 1;
      while (cut > 1 && !fits([...rest].slice(0, cut).join(''))) cut -= 1;
      if (!fits([...rest].slice(0, cut).join(''))) throw new Error('the screen frame leaves no room for content');
      pages.push([...rest].slice(0, cut).join(''));
      rest = [...rest].slice(cut).join('');
    }
    current = rest;
  }
  if (current.trim() !== '' || pages.length === 0) pages.push(current.trimEnd());
  return pages;
}
