/**
 * CSV cells as spreadsheets read them. A cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return is
 * run as a formula by Excel, LibreOffice and Google Sheets (OWASP, "CSV Injection"): a household's region
 * `=HYPERLINK(…)` in an export would become a live link on the operator's screen. Such a cell is written behind a
 * single quote, which spreadsheets show as text; a cell that itself starts with that quote and one of those
 * characters (or a second quote) gets one more, so that reading takes exactly one quote off and every text comes
 * back as it was. Any other leading quote (`'s-Hertogenbosch`) is text and is left alone both ways. A plain negative
 * number (`-12.5`) is no formula and stays as it is.
 */
const FORMULA_START = /^[=+\-@\t\r]/;
const ESCAPED = /^'[=+\-@\t\r']/;
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?$/;

/** The cell text for `value`: quoted behind `'` when a spreadsheet would read it as a formula. */
export function escapeFormula(value: string): string {
  if (NEGATIVE_NUMBER.test(value)) return value;
  return FORMULA_START.test(value) || ESCAPED.test(value) ? `'${value}` : value;
}

/** The value of a cell `escapeFormula` wrote: one leading quote off where it marks an escape. */
export function unescapeFormula(cell: string): string {
  return ESCAPED.test(cell) ? cell.slice(1) : cell;
}

/**
 * RFC 4180: a field is quoted when it holds a comma, a quote or a line break, a quote inside doubled. A formula
 * cell is always quoted too, as OWASP advises, so that no reader splits it before its leading quote.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const cell = escapeFormula(value);
  return cell !== value || /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}
