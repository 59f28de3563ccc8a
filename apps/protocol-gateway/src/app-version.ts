import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The app's own version (package.json, one level above both src/ and dist/), for the OpenAPI document. */
export function appVersion(): string {
  return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string })
    .version;
}
