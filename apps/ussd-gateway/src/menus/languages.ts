import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InfoOverrides } from './content';
import type english from '../../content/en.json';

/**
 * Every text a subscriber sees comes from one JSON file per language in the app's `content/` folder (shipped beside
 * `dist/`, as libs/proto ships its .proto files; `<code>.json`, the code being the
 * BCP 47 tag that numbers, amounts and dates are formatted with). English is the reference: every other file must
 * have each of its keys, with the same `{placeholders}`, or the service does not start. Adding a language is adding
 * a file.
 */
export const CONTENT_DIRECTORY = join(__dirname, '..', '..', 'content');
export const REFERENCE_LANGUAGE = 'en';

type EnglishKey = keyof typeof english;
/** A text chosen by a count: `<key>.one`, `<key>.other` (and any other plural category a language needs). */
export type PluralKey = EnglishKey extends infer K ? (K extends `${infer Base}.other` ? Base : never) : never;
export type MessageKey = Exclude<EnglishKey, `${PluralKey}.${string}`>;
export type Values = Record<string, string | number>;

const PLURAL_CATEGORIES = ['zero', 'one', 'two', 'few', 'many', 'other'];
const LANGUAGE_CODE = /^[a-z]{2,3}(-[A-Z][a-z]{3})?(-[A-Z]{2})?$/;
const MAX_TEXT_LENGTH = 2000;
const PLACEHOLDER = /\{([A-Za-z]+)\}/g;
/** Intl puts no-break spaces in French numbers; they are outside GSM-7 and would make the screen UCS-2 (80 chars). */
const NO_BREAK_SPACES = /[\u00a0\u202f]/g;

const placeholdersOf = (text: string): string =>
  [...new Set([...text.matchAll(PLACEHOLDER)].map((match) => match[1]!))].sort().join(',');

export class Language {
  private readonly plurals: Intl.PluralRules;
  private readonly numbers: Intl.NumberFormat;
  private readonly dates: Intl.DateTimeFormat;

  constructor(
    readonly code: string,
    private readonly messages: Readonly<Record<string, string>>,
  ) {
    this.plurals = new Intl.PluralRules(code);
    this.numbers = new Intl.NumberFormat(code, { maximumFractionDigits: 2 });
    this.dates = new Intl.DateTimeFormat(code, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  }

  /** The same language with some texts replaced (an operator's Know More texts). */
  withTexts(texts: Readonly<Record<string, string>>): Language {
    return new Language(this.code, { ...this.messages, ...texts });
  }

  /** The language's own name for itself, as the language menu lists it. */
  get name(): string {
    return this.text('language.name');
  }

  text(key: MessageKey, values: Values = {}): string {
    return this.fill(this.messages[key]!, values);
  }

  /** A text whose key is data (`product.<kind>` of a catalogue row), when this language has one. */
  lookup(key: string, values: Values = {}): string | undefined {
    const template = this.messages[key];
    return template === undefined ? undefined : this.fill(template, values);
  }

  /** The form of `key` for `count` under this language's plural rules (`.other` when it has no such form). */
  plural(key: PluralKey, count: number, values: Values = {}): string {
    const template = this.messages[`${key}.${this.plurals.select(count)}`] ?? this.messages[`${key}.other`]!;
    return this.fill(template, { count, ...values });
  }

  number(value: number): string {
    return this.numbers.format(value).replace(NO_BREAK_SPACES, ' ');
  }

  /** An amount in minor units (cents) of `currency`, with its ISO code: `KES 1,250` / `1 250 KES`. */
  amount(minorUnits: number, currency: string): string {
    const value = minorUnits / 100;
    const format = new Intl.NumberFormat(this.code, {
      style: 'currency',
      currency,
      currencyDisplay: 'code',
      minimumFractionDigits: Number.isInteger(value) ? 0 : 2,
      maximumFractionDigits: 2,
    });
    return format.format(value).replace(NO_BREAK_SPACES, ' ');
  }

  /** Day and month (`23 Nov`, `23 nov.`): what a handset screen has room for; orders are recent. */
  date(isoTimestamp: string): string {
    return this.dates.format(new Date(isoTimestamp)).replace(NO_BREAK_SPACES, ' ');
  }

  private fill(template: string, values: Values): string {
    return template.replace(PLACEHOLDER, (whole, name: string) => {
      const value = values[name];
      if (value === undefined) return whole;
      return typeof value === 'number' ? this.number(value) : value;
    });
  }
}

/** The languages the service speaks, in menu order (by code). */
export class Languages {
  private readonly byCode: Map<string, Language>;

  constructor(languages: Language[]) {
    this.byCode = new Map(
      [...languages]
        .sort((a, b) => a.code.localeCompare(b.code))
        .map((language) => [language.code, language]),
    );
    if (!this.byCode.has(REFERENCE_LANGUAGE))
      throw new Error(`the ${REFERENCE_LANGUAGE} content file is missing`);
  }

  get codes(): string[] {
    return [...this.byCode.keys()];
  }

  has(code: string): boolean {
    return this.byCode.has(code);
  }

  /** The same languages with the Know More texts of CONTENT_FILE in place of the content files' own. */
  withInfoTexts(overrides: InfoOverrides): Languages {
    return new Languages(
      [...this.byCode.values()].map((language) => {
        const texts = Object.entries(overrides[language.code] ?? {}).map(
          ([topic, text]) => [`info.${topic}`, text] as const,
        );
        return texts.length > 0 ? language.withTexts(Object.fromEntries(texts)) : language;
      }),
    );
  }

  /** `code`'s texts; a session saved with a language since removed falls back to English. */
  get(code: string | undefined): Language {
    return this.byCode.get(code ?? REFERENCE_LANGUAGE) ?? this.byCode.get(REFERENCE_LANGUAGE)!;
  }
}

/** Checks one language's texts against the reference; every problem is named, so a bad file is caught at start-up. */
export function checkMessages(
  code: string,
  raw: unknown,
  reference: Record<string, string>,
): Record<string, string> {
  const source = `content file ${code}.json`;
  if (!LANGUAGE_CODE.test(code) || Intl.NumberFormat.supportedLocalesOf([code]).length === 0) {
    throw new Error(`${source}: "${code}" is not a language tag this runtime can format for`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new Error(`${source}: must be a JSON object of texts`);
  const messages = raw as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(reference)) {
    if (!(key in messages)) problems.push(`missing key "${key}"`);
  }
  for (const [key, value] of Object.entries(messages)) {
    const pluralBase = /^(.+)\.([a-z]+)$/.exec(key);
    const isPluralForm =
      pluralBase !== null &&
      PLURAL_CATEGORIES.includes(pluralBase[2]!) &&
      `${pluralBase[1]}.other` in reference;
    const model = reference[key] ?? (isPluralForm ? reference[`${pluralBase![1]}.other`] : undefined);
    if (model === undefined) {
      problems.push(`unknown key "${key}"`);
      continue;
    }
    if (typeof value !== 'string' || value.trim() === '')
      problems.push(`"${key}" must be a non-empty string`);
    else if (value.length > MAX_TEXT_LENGTH)
      problems.push(`"${key}" is longer than ${MAX_TEXT_LENGTH} characters`);
    else if (placeholdersOf(value) !== placeholdersOf(model)) {
      problems.push(
        `"${key}" must use the placeholders {${placeholdersOf(model).split(',').filter(Boolean).join('}, {')}}`,
      );
    }
  }
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return messages as Record<string, string>;
}

/** Every `<code>.json` in `directory`, checked against its English file. */
export function loadLanguages(directory = CONTENT_DIRECTORY): Languages {
  const files = readdirSync(directory).filter((file) => file.endsWith('.json'));
  const read = (file: string): unknown => {
    try {
      return JSON.parse(readFileSync(join(directory, file), 'utf8'));
    } catch (error) {
      throw new Error(`content file ${file} could not be read as JSON: ${(error as Error).message}`);
    }
  };
  if (!files.includes(`${REFERENCE_LANGUAGE}.json`))
    throw new Error(`${directory} has no ${REFERENCE_LANGUAGE}.json`);
  const reference = read(`${REFERENCE_LANGUAGE}.json`) as Record<string, string>;
  return new Languages(
    files.map((file) => {
      const code = file.slice(0, -'.json'.length);
      return new Language(code, checkMessages(code, read(file), reference));
    }),
  );
}
