import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENTITY_FORMATS, ENTITY_NAMES } from './entity-formats';
import { checkSql, dropStagingSql, mergeSql } from './load-sql';

const withoutComments = (source: string): string =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');

// Only the descriptions know an entity: import, load SQL and export stay generic, so a table is described once. The
// descriptions are in entities/ (not read here); the two files below name the entities and put the descriptions
// together.
const DESCRIPTION_FILES = ['entity-description.ts', 'entity-formats.ts'];

describe('entity formats: the one description of each registry table', () => {
  const generic = readdirSync(__dirname).filter(
    (file) => file.endsWith('.ts') && !file.endsWith('.spec.ts') && !DESCRIPTION_FILES.includes(file),
  );
  const names = [
    ...ENTITY_NAMES,
    ...ENTITY_NAMES.map((name) => ENTITY_FORMATS[name].table),
    'household_fuels',
    'household',
    'credit_block',
  ];

  it.each(generic)('%s names no entity, table or entity-specific column', (file) => {
    const code = withoutComments(readFileSync(join(__dirname, file), 'utf8'));
    const found = [...new Set(names.filter((name) => new RegExp(`\\b${name}`).test(code)))];
    expect(found).toEqual([]);
  });

  it.each(ENTITY_NAMES)('%s merges exactly the columns its description stores', (name) => {
    const format = ENTITY_FORMATS[name];
    const stored = [
      ...format.columns.filter((column) => !column.elsewhere).map((column) => column.name),
      ...(format.derived?.columns ?? []).map(({ column }) => column),
    ];
    const insert = mergeSql(name).find(
      (statement) =>
        statement.counts === 'inserted' && statement.sql.startsWith(`INSERT INTO ${format.table} (`),
    );
    expect(insert?.sql).toContain(`INSERT INTO ${format.table} (${stored.join(', ')})`);
  });

  it.each(ENTITY_NAMES)(
    '%s runs the checks its description declares, after the key and reference checks',
    (name) => {
      const format = ENTITY_FORMATS[name];
      const declared =
        format.checks?.({ stage: 's', problem: (column) => column, finalRows: () => '' }) ?? [];
      expect(checkSql(name)).toHaveLength(1 + format.references.length + declared.length);
    },
  );

  it('drops every scratch table a description creates', () => {
    for (const name of ENTITY_NAMES)
      for (const table of ENTITY_FORMATS[name].merge?.scratchTables ?? [])
        expect(dropStagingSql()).toContain(table);
  });
});
