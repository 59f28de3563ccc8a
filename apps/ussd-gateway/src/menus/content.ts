import { readFileSync } from 'node:fs';

export const INFO_TOPICS = ['about', 'pricing', 'delivery'] as const;
export type InfoTopic = (typeof INFO_TOPICS)[number];

/** The texts behind Know More; operators replace them with a JSON file (CONTENT_FILE) without a release. */
export type MenuContent = Record<InfoTopic, string>;

export const DEFAULT_CONTENT: MenuContent = {
  about:
    'We supply clean cookstoves and fuel to households. Cleaner cooking cuts smoke in the home, saves on fuel ' +
    'and earns carbon credits that keep prices low. Create an account to order and track your stove.',
  pricing:
    'Stove: 450 per unit, or 3 monthly payments of 160. Fuel pellets: 25 per kg. Accessories: pot skirt 40, ' +
    'spare grate 60. Prices include VAT. Pay by mobile money after you create an account.',
  delivery:
    'We deliver to all districts we serve within 5 working days of payment. Delivery is free in town centres ' +
    'and 50 elsewhere. Our agent calls you before arriving. Ask us if we cover your area.',
};

const MAX_TEXT_LENGTH = 2000;

/** Parses and checks a content document; every problem is named so a bad edit is caught at start-up. */
export function parseContent(raw: unknown, source: string): MenuContent {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new Error(`${source}: content must be a JSON object with the keys ${INFO_TOPICS.join(', ')}`);
  }
  const record = raw as Record<string, unknown>;
  const problems: string[] = [];
  const content = { ...DEFAULT_CONTENT };
  for (const key of Object.keys(record)) {
    if (!(INFO_TOPICS as readonly string[]).includes(key)) problems.push(`unknown key "${key}"`);
  }
  for (const topic of INFO_TOPICS) {
    const value = record[topic];
    // A topic left out keeps its default, so an operator can override one text only.
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '') problems.push(`"${topic}" must be a non-empty string`);
    else if (value.length > MAX_TEXT_LENGTH) problems.push(`"${topic}" is longer than ${MAX_TEXT_LENGTH} characters`);
    else content[topic] = value.trim().replace(/\s+/g, ' ');
  }
  if (problems.length > 0) throw new Error(`${source}: ${problems.join('; ')}`);
  return content;
}

export function loadContent(file: string | undefined): MenuContent {
  if (file === undefined) return DEFAULT_CONTENT;
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`CONTENT_FILE ${file} could not be read as JSON: ${(error as Error).message}`);
  }
  return parseContent(raw, `CONTENT_FILE ${file}`);
}
