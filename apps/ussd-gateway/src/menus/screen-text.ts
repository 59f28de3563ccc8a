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

const LOOKALIKES: Record<string, string> = {
  œ: 'oe',
  Œ: 'OE',
  '’': "'",
  '‘': "'",
  '«': '"',
  '»': '"',
  '–': '-',
  '—': '-',
  '…': '...',
};

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
 * The pieces a line is broken into when it cannot fit a page: its words, each with the space after it, a label
 * (`Name:`, `Nom :`) joined to the word after it so that a page does not end on a label whose value starts the next
 * page. A label and word that together cannot fit a page stay two pieces: `fits` says what one page holds.
 */
function piecesOf(line: string, fits: (piece: string) => boolean): string[] {
  const pieces: string[] = [];
  let label = '';
  for (const word of line.split(/(?<=\s)/u)) {
    if (label === '' && /:\s$/u.test(word)) {
      // French sets a space before the colon (`Nom : `): the label is the word before it too.
      label = word.startsWith(':') && pieces.length > 0 ? pieces.pop()! + word : word;
      continue;
    }
    if (label !== '' && fits(label + word)) pieces.push(label + word);
    else pieces.push(...(label === '' ? [] : [label]), word);
    label = '';
  }
  if (label !== '') pieces.push(label);
  return pieces;
}

/** The longest start of a word too long for a page that fits one, after its last hyphen when it has one there. */
function cutOf(chars: string[], fits: (piece: string) => boolean): string {
  let cut = chars.length - 1;
  while (cut > 1 && !fits(chars.slice(0, cut).join(''))) cut -= 1;
  if (!fits(chars.slice(0, cut).join(''))) throw new Error('the screen frame leaves no room for content');
  const hyphen = chars.lastIndexOf('-', cut - 1);
  return chars.slice(0, hyphen > 0 ? hyphen + 1 : cut).join('');
}

/**
 * Splits `body` into the fewest pages such that `frame(page, index, isLast)` fits on a screen, where a page breaks
 * between lines; a line that cannot fit a page of its own breaks between words (a label kept with the start of its
 * value where both fit a page), and a word is cut only when it alone cannot fit a page. Each page is measured in its
 * own encoding: one Cyrillic name makes its page UCS-2 (80 characters), not its neighbours. `frame` adds the lines
 * around the body (title, navigation), so the navigation lines are counted before the body is cut, never appended
 * after.
 */
export function paginate(
  body: string,
  frame: (page: string, index: number, isLast: boolean) => string,
): string[] {
  const pages: string[] = [];
  let current = '';
  const fitting = (text: string): boolean => fitsOnScreen(screenText(text));
  const fits = (candidate: string): boolean =>
    fitting(frame(candidate.trimEnd(), pages.length, false)) &&
    fitting(frame(candidate.trimEnd(), pages.length, true));
  const turnPage = (): void => {
    if (current.trim() !== '') pages.push(current.trimEnd());
    current = '';
  };
  for (const line of body.split('\n')) {
    const joined = current === '' ? line : `${current}\n${line}`;
    if (fits(joined)) {
      current = joined;
      continue;
    }
    if (fits(line)) {
      turnPage();
      current = line;
      continue;
    }
    // A line longer than a page starts where the page has room and runs on, word by word.
    if (current !== '') current += '\n';
    for (const piece of piecesOf(line, fits)) {
      if (fits(current + piece)) {
        current += piece;
        continue;
      }
      turnPage();
      let rest = piece;
      while (!fits(rest)) {
        const cut = cutOf([...rest], fits);
        pages.push(rest.slice(0, cut.length));
        rest = rest.slice(cut.length);
      }
      current = rest;
    }
  }
  if (current.trim() !== '' || pages.length === 0) pages.push(current.trimEnd());
  return pages;
}
