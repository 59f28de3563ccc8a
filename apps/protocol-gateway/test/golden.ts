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
    const golden = expected[index] ?? '';
    // V8 releases differ in the last digits of some random doubles (Node 20: 4.8105096747167415e+28, Node 24:
    // 4.810509674716741e+28): a line that differs only beyond 15 significant digits of its numbers is the same line.
    const same = body === golden || reprinted(body) === reprinted(golden);
    expect({ index, body: same ? golden : body }).toEqual({ index, body: golden });
  }
}

function reprinted(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), (_key, value: unknown) =>
      typeof value === 'number' ? Number(value.toPrecision(15)) : value,
    );
  } catch {
    return body;
  }
}
