import { readFileSync } from 'node:fs';

export const INFO_TOPICS = ['about', 'pricing', 'delivery'] as const;
export type InfoTopic = (typeof INFO_TOPICS)[number];

/** Know More texts an operator replaces without a release (CONTENT_FILE), per language code. */
export type InfoOverrides = Record<string, Partial<Record<InfoTopic, string>>>;

const MAX_TEXT_LENGTH = 2000;

function parseTopics(raw: unknown, where: string, problems: string[]): Partial<Record<InfoTopic, string>> {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${where} must be an object with the keys ${INFO_TOPICS.join(', ')}`);
    return {};
  }
  const record = raw as Record<string, unknown>;
  const texts: Partial<Record<InfoTopic, string>> = {};
  for (const key of Object.keys(record)) {
    if (!(INFO_TOPICS as readonly string[]).includes(key))
      problems.push(`unknown key "${where ? `${where}.` : ''}${key}"`);
  }
  for (const topic of INFO_TOPICS) {
    const value = record[topic];
    const name = where ? `${where}.${topic}` : topic;
    // A topic left out keeps the content file's text, so an operator can override one text only.
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '')
      problems.push(`"${name}" must be a non-empty string`);
    else if (value.length > MAX_TEXT_LENGTH)
      problems.push(`"${name}" is longer than ${MAX_TEXT_LENGTH} characters`);
    else texts[topic] = value.trim().replace(/\s+/g, ' ');
  }
  return texts;
}

/**
 * Parses and checks an override document: either `{about, pricing, delivery}` (English, the form before there were
 * languages) or `{"<language>": {about, …}, …}` for languages the service has. Every problem is named, so a bad edit
 * is caught at start-up.
 */
export function parseContent(raw: unknown, source: string, languageCodes: readonly string[]): InfoOverrides {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(
      `${source}: content must be a JSON object with the keys ${INFO_TOPICS.join(', ')} or language codes`,
    );
  }
  const record = raw as Record<string, unknown>;
  const problems: string[] = [];
  const perLanguage = Object.keys(record).some(
    (key) => !(INFO_TOPICS as readonly string[]).includes(key) && languageCodes.includes(key),
  );
  let overrides: InfoOverrides;
  if (perLanguage) {
    overrides = {};
    for (const [code, topics] of Object.entries(record)) {
      if (!languageCodes.includes(code))
        problems.push(`unknown language "${code}" (known: ${languageCodes.join(', ')})`);
      else overrides[code] = parseTopics(topics, code, problems);
    }
  } else {
    overrides = { en: parseTopics(record, '', problems) };
  }
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return overrides;
}

export function loadContent(file: string | undefined, languageCodes: readonly string[]): InfoOverrides {
  if (file === undefined) return {};
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`CONTENT_FILE ${file} could not be read as JSON: ${(error as Error).message}`);
  }
  return parseContent(raw, `CONTENT_FILE ${file}`, languageCodes);
}
