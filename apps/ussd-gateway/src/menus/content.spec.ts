import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_CONTENT, loadContent, parseContent } from './content';
import { fitsOnScreen, paginate, screenCost } from './screen-text';

describe('menu content', () => {
  it('keeps defaults for topics an operator leaves out', () => {
    expect(parseContent({ pricing: '  Stove  400. ' }, 'test')).toEqual({ ...DEFAULT_CONTENT, pricing: 'Stove 400.' });
  });

  it('names every problem of a bad file', () => {
    expect(() => parseContent({ about: '', extra: 'x' }, 'file.json')).toThrow('file.json: unknown key "extra"; "about" must be a non-empty string');
    expect(() => parseContent([], 'file.json')).toThrow('must be a JSON object');
  });

  it('reads a JSON file and reports one that is not JSON', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ussd-content-'));
    writeFileSync(join(dir, 'good.json'), JSON.stringify({ delivery: 'We deliver on Mondays.' }));
    writeFileSync(join(dir, 'bad.json'), '{ nope');
    expect(loadContent(join(dir, 'good.json')).delivery).toBe('We deliver on Mondays.');
    expect(() => loadContent(join(dir, 'bad.json'))).toThrow('could not be read as JSON');
    expect(loadContent(undefined)).toBe(DEFAULT_CONTENT);
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
