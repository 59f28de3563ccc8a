import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadContent, parseContent } from './content';
import { fitsOnScreen, paginate, screenCost, screenText, toGsm7 } from './screen-text';

const CODES = ['en', 'fr', 'sw'];

describe('CONTENT_FILE (Know More texts replaced by an operator)', () => {
  it('reads the flat form as English and keeps the other topics', () => {
    expect(parseContent({ pricing: '  Stove  400. ' }, 'test', CODES)).toEqual({
      en: { pricing: 'Stove 400.' },
    });
  });

  it('reads texts per language', () => {
    expect(parseContent({ fr: { about: 'Bonjour.' }, sw: { delivery: 'Tunaleta.' } }, 'test', CODES)).toEqual(
      {
        fr: { about: 'Bonjour.' },
        sw: { delivery: 'Tunaleta.' },
      },
    );
  });

  it('names every problem of a bad file', () => {
    expect(() => parseContent({ about: '', extra: 'x' }, 'file.json', CODES)).toThrow(
      'file.json: unknown key "extra"; "about" must be a non-empty string',
    );
    expect(() => parseContent({ fr: { about: 'x', nope: 'y' }, xx: {} }, 'file.json', CODES)).toThrow(
      'file.json: unknown key "fr.nope"; unknown language "xx" (known: en, fr, sw)',
    );
    expect(() => parseContent([], 'file.json', CODES)).toThrow('must be a JSON object');
  });

  it('reads a JSON file and reports one that is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ussd-content-'));
    writeFileSync(join(dir, 'good.json'), JSON.stringify({ delivery: 'We deliver on Mondays.' }));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect(loadContent(join(dir, 'good.json'), CODES).en?.delivery).toBe('We deliver on Mondays.');
    expect(() => loadContent(join(dir, 'bad.json'), CODES)).toThrow('could not be read as JSON');
    expect(loadContent(undefined, CODES)).toEqual({});
  });
});

describe('screen text', () => {
  it('counts GSM-7 septets, extension characters double, and UCS-2 for anything else', () => {
    expect(screenCost('abc')).toEqual({ used: 3, limit: 182 });
    expect(screenCost('a€')).toEqual({ used: 3, limit: 182 });
    expect(screenCost('Ọla')).toEqual({ used: 3, limit: 80 });
    expect(fitsOnScreen('x'.repeat(182))).toBe(true);
    expect(fitsOnScreen('x'.repeat(183))).toBe(false);
  });

  it('folds to GSM-7 only what has a GSM-7 form, keeping the GSM-7 accents', () => {
    expect(toGsm7('Français, être, Où, À, œuf, Ọlá, « l’été »')).toBe(
      'Francais, etre, Où, A, oeuf, Ola, " l\'été "',
    );
    expect(toGsm7('Александра')).toBe('Александра');
  });

  it('sends a screen as written when it fits, folded when only that fits', () => {
    expect(screenText('Prêt')).toBe('Prêt');
    const long = `Prêt ${'x'.repeat(100)}`;
    expect(screenCost(long).limit).toBe(80);
    expect(screenText(long)).toBe(`Pret ${'x'.repeat(100)}`);
  });

  it('pages between words with the frame counted first', () => {
    const frame = (page: string) => `Title\n${page}\n0. Back`;
    const pages = paginate('word '.repeat(100).trim(), frame);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      expect(fitsOnScreen(frame(page))).toBe(true);
      expect(page).toMatch(/^word( word)*$/);
    }
    expect(paginate('y'.repeat(500), frame).join('')).toBe('y'.repeat(500));
  });
});
