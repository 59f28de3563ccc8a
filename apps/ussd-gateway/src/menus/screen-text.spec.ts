import fc from 'fast-check';
import { fitsOnScreen, paginate, screenText } from './screen-text';

/**
 * Frames that leave a page a known room in each encoding: `room` characters of a UCS-2 page (80 in all), and 182 -
 * (80 - room) septets of a GSM-7 one, as the account details screen's title and navigation do.
 */
const frameWithRoom = (room: number) => {
  const header = 'T'.repeat(26);
  const navigation = 'n'.repeat(80 - 26 - 2 - room);
  return (page: string): string => `${header}\n${page}\n${navigation}`;
};
/** The account details screen in English: 14 characters of a UCS-2 page, 116 septets of a GSM-7 one. */
const details = frameWithRoom(14);
/** Room for 31 septets of GSM-7 (none for UCS-2). */
const gsm7Room31 = (page: string): string => `${'T'.repeat(150)}\n${page}`;

describe('paginate: where a page breaks', () => {
  it.each([
    // issue 32, item 5: the name was cut as "Name: Александ" / "ра Петрова".
    [
      'a UCS-2 name breaks between its words, never inside one that fits a page',
      details,
      'Name: Александра Петрова',
      ['Name:', 'Александра', 'Петрова'],
    ],
    [
      'lines that fit a page each are never broken (GSM-7)',
      gsm7Room31,
      'Delivery on Mondays\nPay on delivery',
      ['Delivery on Mondays', 'Pay on delivery'],
    ],
    [
      'lines that fit a page each are never broken (UCS-2)',
      details,
      'Имя\nИван Петрович',
      ['Имя', 'Иван Петрович'],
    ],
    [
      'a line longer than a page runs on from where the page has room, between words',
      gsm7Room31,
      `Hi\n${'word '.repeat(12).trim()}`,
      ['Hi\nword word word word word', 'word word word word word word', 'word'],
    ],
    [
      'a word longer than a page is cut, after its hyphen when it has one',
      details,
      'Петрова-Сидорова',
      ['Петрова-', 'Сидорова'],
    ],
    [
      'a word longer than a page without a hyphen is cut where the page ends',
      details,
      'Константинопольская улица',
      ['Константинопол', 'ьская улица'],
    ],
    [
      'a label stays with the start of its value when both fit a page',
      gsm7Room31,
      'Reference: ABCDEFGHIJ Name: Wanjiku',
      ['Reference: ABCDEFGHIJ', 'Name: Wanjiku'],
    ],
    [
      'a French label, its colon after a space, stays with its value',
      (page: string) => `${'T'.repeat(164)}\n${page}`,
      'Client 42 Nom : Dupont',
      ['Client 42', 'Nom : Dupont'],
    ],
    [
      'each page is measured in its own encoding: a GSM-7 page holds more than a UCS-2 one',
      details,
      'Customer ID: C0A1B2C3D\nName: Александра Петрова\nE-mail: none\nPhone: +2547*****001',
      ['Customer ID: C0A1B2C3D\nName:', 'Александра', 'Петрова', 'E-mail: none\nPhone: +2547*****001'],
    ],
  ])('%s', (_case, frame, body, pages) => {
    expect(paginate(body, frame)).toEqual(pages);
    for (const page of pages) expect(fitsOnScreen(screenText(frame(page)))).toBe(true);
  });

  it('for any body: every page fits, nothing is lost, a line that fits a page is whole on one, a word that fits one is never cut', () => {
    const word = fc.oneof(
      fc.stringMatching(/^[A-Za-z]{1,20}$/),
      fc.stringMatching(/^[а-яА-Я]{1,20}$/),
      fc.stringMatching(/^[A-Za-z]{1,8}:$/),
      fc.constantFrom('Петрова-Сидорова', 'Wanjiku-Otieno-Kamau'),
    );
    const line = fc.array(word, { minLength: 1, maxLength: 8 }).map((words) => words.join(' '));
    const body = fc.array(line, { minLength: 1, maxLength: 6 }).map((lines) => lines.join('\n'));
    fc.assert(
      fc.property(body, fc.constantFrom(details, frameWithRoom(30), frameWithRoom(5)), (text, frame) => {
        const pages = paginate(text, frame);
        const alone = (piece: string): boolean => fitsOnScreen(screenText(frame(piece)));
        for (const page of pages) expect(alone(page)).toBe(true);
        expect(pages.join('').replace(/\s/g, '')).toBe(text.replace(/\s/g, ''));
        const pageLines = new Set(pages.flatMap((page) => page.split('\n')));
        for (const bodyLine of text.split('\n').filter(alone)) expect(pageLines).toContain(bodyLine);
        const pageWords = new Set(pages.flatMap((page) => page.split(/\s+/)));
        for (const bodyWord of text.split(/\s+/).filter(alone)) expect(pageWords).toContain(bodyWord);
      }),
    );
  });
});
