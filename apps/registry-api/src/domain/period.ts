/** A reporting period as the API names it and the inclusive calendar dates it covers. */
export interface Period {
  label: string;
  start: string;
  end: string;
}

export class PeriodFormatError extends Error {}

const PATTERN = /^(\d{4})(?:-(?:Q([1-4])|(0[1-9]|1[0-2])))?$/;

function iso(year: number, month: number, day: number): string {
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

function lastDayOfMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/**
 * `YYYY-Q1`…`YYYY-Q4` is the upstream format; a whole year (`YYYY`) and a month (`YYYY-MM`) are accepted too
 * because registries report annually and monitoring runs monthly.
 */
export function parsePeriod(value: string): Period {
  const match = PATTERN.exec(value);
  if (!match) throw new PeriodFormatError(`"${value}" is not a period`);
  const year = Number(match[1]);
  if (year < 1900) throw new PeriodFormatError(`"${value}" is not a period`);
  if (match[2]) {
    const quarter = Number(match[2]);
    const firstMonth = (quarter - 1) * 3 + 1;
    return {
      label: value,
      start: iso(year, firstMonth, 1),
      end: iso(year, firstMonth + 2, lastDayOfMonth(year, firstMonth + 2)),
    };
  }
  if (match[3]) {
    const month = Number(match[3]);
    return { label: value, start: iso(year, month, 1), end: iso(year, month, lastDayOfMonth(year, month)) };
  }
  return { label: value, start: iso(year, 1, 1), end: iso(year, 12, 31) };
}

export const PERIOD_PATTERN_SOURCE = '^\\d{4}(-Q[1-4]|-(0[1-9]|1[0-2]))?$';

/** The quarter label (`2024-Q3`) of a YYYY-MM-DD date. */
export function quarterOf(date: string): string {
  const month = Number(date.slice(5, 7));
  return `${date.slice(0, 4)}-Q${Math.floor((month - 1) / 3) + 1}`;
}
