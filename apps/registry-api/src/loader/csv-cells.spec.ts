import fc from 'fast-check';
import { csvField, escapeFormula, unescapeFormula } from './csv-cells';

describe('CSV cells', () => {
  it.each<[string, string]>([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    [`+cmd|' /C calc'!A0`, `"'+cmd|' /C calc'!A0"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(1+1)', `"'@SUM(1+1)"`],
    ['\tTab first', `"'\tTab first"`],
    ['\rReturn first', `"'\rReturn first"`],
    [`'=already quoted`, `"''=already quoted"`],
    [`''`, `"'''"`],
    [`'s-Hertogenbosch`, `'s-Hertogenbosch`],
    ['-12.5', '-12.5'],
    ['Lusaka', 'Lusaka'],
    ['a=b', 'a=b'],
    ['Mansa LPG, Phase 1', '"Mansa LPG, Phase 1"'],
    ['', ''],
  ])('writes %j as %s', (value, cell) => {
    expect(csvField(value)).toBe(cell);
  });

  it('writes NULL as an empty field', () => {
    expect(csvField(null)).toBe('');
  });

  it('reads back exactly what it wrote, whatever the text', () => {
    const text = fc.string({
      unit: fc.constantFrom('=', '+', '-', '@', '\t', '\r', "'", 'a', '1', '.', ' '),
    });
    fc.assert(
      fc.property(text, (value) => {
        expect(unescapeFormula(escapeFormula(value))).toBe(value);
      }),
    );
  });

  it('never writes a cell a spreadsheet runs as a formula', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        const cell = escapeFormula(value);
        expect(/^[=+@\t\r]/.test(cell) || (/^-/.test(cell) && !/^-\d+(\.\d+)?$/.test(cell))).toBe(false);
      }),
    );
  });
});
