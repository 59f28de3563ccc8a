import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Where the printer's golden files live: one JSON body (or "threw …") per line. */
export const GOLDEN_DIR = join(__dirname, 'golden');

/**
 * Compares printed bodies with a golden file, line by line, naming the first differing index. With
 * `UPDATE_GOLDEN=1` the file is written instead: review its diff before committing it, since a golden file is only
 * as right as the output it was taken from (the canonical-JSON comparison in json-printer.spec.ts is the check).
 */
export function expectGolden(name: string, bodies: readonly string[]): void {
  const file = join(GOLDEN_DIR, `${name}.jsonl`);
  if (process.env.UPDATE_GOLDEN === '1') {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, `${bodies.join('\n')}\n`);
    return;
  }
  const expected = readFileSync(file, 'utf8').split('\n').slice(0, -1);
  expect(bodies.length).toBe(expected.length);
  for (const [index, body] of bodies.entries()) {
    expect({ index, body }).toEqual({ index, body: expected[index] });
  }
}
