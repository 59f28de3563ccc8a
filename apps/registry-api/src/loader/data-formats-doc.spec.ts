import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITY_FORMATS, ENTITY_NAMES } from './entity-formats';

const REPO = join(__dirname, '..', '..', '..', '..');
const DOC = readFileSync(join(REPO, 'docs', 'data-formats.md'), 'utf8');

/** The first column of the table under `### <entity>` in docs/data-formats.md. */
function documentedColumns(entity: string): string[] {
  const section = DOC.split(`\n### ${entity}\n`)[1]?.split('\n### ')[0] ?? '';
  return [...section.matchAll(/^\| `([a-z_0-9]+)` \|/gm)].map((match) => match[1]!);
}

describe('docs/data-formats.md', () => {
  it.each(ENTITY_NAMES)('lists exactly the columns the loader reads for %s, in its order', (entity) => {
    expect(documentedColumns(entity)).toEqual(ENTITY_FORMATS[entity].columns.map((column) => column.name));
  });

  it('has an example file for every entity, loadable as a set (apps/registry-api/examples)', () => {
    const files = readdirSync(join(REPO, 'apps', 'registry-api', 'examples')).sort();
    expect(files).toEqual(ENTITY_NAMES.map((entity) => `${entity}.csv`).sort());
  });
});
