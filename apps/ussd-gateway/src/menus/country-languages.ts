/**
 * Which language a phone number gets before its subscriber chooses one: the longest country-code prefix of the
 * E.164 number found in the table (`LANGUAGE_BY_COUNTRY_CODE`), else the default language.
 */
export class CountryLanguages {
  constructor(
    readonly table: ReadonlyMap<string, string>,
    readonly fallback: string,
  ) {}
}

/** `["255:sw", "243:fr"]` → a table; every problem named (the variable is checked at start-up). */
export function parseCountryLanguages(
  entries: readonly string[],
  fallback: string,
  known: readonly string[],
): CountryLanguages {
  const problems: string[] = [];
  const table = new Map<string, string>();
  for (const entry of entries) {
    const match = /^\+?(\d{1,4}):([A-Za-z-]+)$/.exec(entry.trim());
    if (!match) problems.push(`"${entry}" is not <country code>:<language>`);
    else if (!known.includes(match[2]!))
      problems.push(`"${entry}" names a language without a content file (known: ${known.join(', ')})`);
    else table.set(match[1]!, match[2]!);
  }
  if (!known.includes(fallback))
    problems.push(`DEFAULT_LANGUAGE "${fallback}" has no content file (known: ${known.join(', ')})`);
  if (problems.length > 0) throw new Error(`LANGUAGE_BY_COUNTRY_CODE: ${problems.join('; ')}`);
  return new CountryLanguages(table, fallback);
}

export function languageOfPhone(phoneNumber: string, { table, fallback }: CountryLanguages): string {
  const digits = phoneNumber.replace(/^\+/, '');
  for (let length = 4; length >= 1; length -= 1) {
    const language = table.get(digits.slice(0, length));
    if (language) return language;
  }
  return fallback;
}
