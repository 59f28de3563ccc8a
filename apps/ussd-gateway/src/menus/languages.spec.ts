import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { languageOfPhone, parseCountryLanguages } from './country-languages';
import { CONTENT_DIRECTORY, loadLanguages } from './languages';

const english = JSON.parse(readFileSync(join(CONTENT_DIRECTORY, 'en.json'), 'utf8')) as Record<
  string,
  string
>;

/** A content directory holding English and `files`. */
function contentWith(files: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ussd-languages-'));
  writeFileSync(join(dir, 'en.json'), JSON.stringify(english));
  for (const [name, content] of Object.entries(files))
    writeFileSync(join(dir, name), JSON.stringify(content));
  return dir;
}

describe('content files', () => {
  it('ships English, French and Swahili, each with every key of the English file', () => {
    const languages = loadLanguages();
    expect(languages.codes).toEqual(['en', 'fr', 'sw']);
    expect(languages.codes.map((code) => languages.get(code).name)).toEqual([
      'English',
      'Français',
      'Kiswahili',
    ]);
  });

  it('refuses a file lacking a key the English one has', () => {
    const { ['orders.title']: _dropped, ...rest } = english;
    expect(() => loadLanguages(contentWith({ 'de.json': rest }))).toThrow(
      'content file de.json: missing key "orders.title"',
    );
  });

  it('refuses unknown keys, empty texts and other placeholders', () => {
    const bad = { ...english, 'no.such.key': 'x', 'nav.exit': ' ', 'loginPin.prompt': 'PIN für {kunde}' };
    expect(() => loadLanguages(contentWith({ 'de.json': bad }))).toThrow(
      'content file de.json: "nav.exit" must be a non-empty string; "loginPin.prompt" must use the placeholders {customerId}; unknown key "no.such.key"',
    );
  });

  it('accepts plural forms a language needs beyond English ones', () => {
    const polish = { ...english, 'notice.wrongPin.few': 'Zły PIN. Zostały {count} próby.' };
    const languages = loadLanguages(contentWith({ 'pl.json': polish }));
    expect(languages.get('pl').plural('notice.wrongPin', 3)).toBe('Zły PIN. Zostały 3 próby.');
    expect(languages.get('pl').plural('notice.wrongPin', 5)).toBe('Wrong PIN. 5 tries left.');
  });

  it('refuses a file whose name is no language tag', () => {
    expect(() => loadLanguages(contentWith({ 'english-2.json': english }))).toThrow(
      '"english-2" is not a language tag',
    );
  });

  it('formats numbers, amounts and dates per language, in GSM-7 spaces', () => {
    const languages = loadLanguages();
    const [en, fr, sw] = ['en', 'fr', 'sw'].map((code) => languages.get(code));
    expect([en!.number(12345.5), fr!.number(12345.5), sw!.number(12345.5)]).toEqual([
      '12,345.5',
      '12 345,5',
      '12,345.5',
    ]);
    expect([en!.amount(125_000, 'KES'), fr!.amount(125_050, 'KES'), sw!.amount(60_000, 'KES')]).toEqual([
      'KES 1,250',
      '1 250,50 KES',
      'KES 600',
    ]);
    expect([
      en!.date('2026-11-03T10:00:00Z'),
      fr!.date('2026-11-03T10:00:00Z'),
      sw!.date('2026-11-03T10:00:00Z'),
    ]).toEqual(['Nov 3', '3 nov.', '3 Nov']);
    expect(fr!.plural('notice.wrongPin', 1)).toBe('PIN incorrect. Il vous reste 1 essai.');
    expect(sw!.plural('notice.wrongCredentials', 2)).toBe(
      'Nambari ya mteja au PIN si sahihi. Umebakiwa na majaribio 2.',
    );
  });
});

describe('language of a phone number', () => {
  const table = parseCountryLanguages(['255:sw', '+243:fr', '1:fr', '1684:sw'], 'en', ['en', 'fr', 'sw']);

  it('takes the longest country code in the table, else the default', () => {
    expect(languageOfPhone('+255712345678', table)).toBe('sw');
    expect(languageOfPhone('+243812345678', table)).toBe('fr');
    expect(languageOfPhone('+16845551234', table)).toBe('sw');
    expect(languageOfPhone('+15145551234', table)).toBe('fr');
    expect(languageOfPhone('+254712345678', table)).toBe('en');
  });

  it('names entries that are malformed or name a language without a content file', () => {
    expect(() => parseCountryLanguages(['255=sw', '243:de'], 'xx', ['en', 'fr', 'sw'])).toThrow(
      'LANGUAGE_BY_COUNTRY_CODE: "255=sw" is not <country code>:<language>; "243:de" names a language without a content file (known: en, fr, sw); DEFAULT_LANGUAGE "xx" has no content file (known: en, fr, sw)',
    );
  });
});
