import 'reflect-metadata';
import { ArgumentMetadata, HttpException, Type } from '@nestjs/common';
import { getMetadataStorage, IsOptional, IsString, ValidateNested } from 'class-validator';
import { strictValidationPipe } from '@dmrv/http-kit';
import {
  EmissionReductionQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  ProjectScopedQuery,
  recordQueryClasses,
  StoveStackingListQuery,
  StoveStackingQuery,
} from '../registry/dto/registry-queries';
import { RECORD_RESOURCES } from '../registry/record-resources';
import { CompiledQueryPipe, compileQuery } from './compiled-query-pipe';

const QUERY_CLASSES: Array<Type<unknown>> = [
  ProjectScopedQuery,
  HouseholdStatsQuery,
  StoveStackingQuery,
  FuelUsageQuery,
  IssuedCreditsQuery,
  EmissionReductionQuery,
  StoveStackingListQuery,
  ...RECORD_RESOURCES.flatMap((resource) => {
    const classes = recordQueryClasses(resource);
    return [classes.latest, classes.list];
  }),
];

// Values that pass and fail each kind of rule the query classes use: identifiers, free text, periods, days,
// date-times, fuel combinations, page sizes, cursors; then lengths at and over the limits, control characters.
const VALUES: unknown[] = [
  '',
  'project-001',
  'hh.0001:a_b',
  '-leading-dash',
  'Nairobi West',
  'tab\there',
  'nul\u0000',
  '2025',
  '2025-Q1',
  '2025-Q5',
  '2025-07',
  '2025-13',
  '2024-02-29',
  '2023-02-29',
  '2024-01-01T00:00:00Z',
  '2024-01-01T00:00:00',
  'LPG',
  'LPG + Electricity',
  'Electricity + LPG',
  'Coal',
  '1',
  '50',
  '500',
  '501',
  '0',
  '-3',
  '1.5',
  '1e3',
  '0x10',
  '9999999999',
  'a'.repeat(100),
  'a'.repeat(101),
  'a'.repeat(200),
  'a'.repeat(201),
  'c'.repeat(1001),
  ['a', 'b'],
  ['50'],
];
const EXTRA_KEYS = ['foo', 'constructor', 'toString', 'hasOwnProperty', '__proto__', 'period ', 'LIMIT'];

/** A deterministic pseudo-random sequence, so a failure names a query that can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The parameters the whitelist knows: every property with a validation rule. */
function propertiesOf(metatype: Type<unknown>): string[] {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(metatype, undefined as unknown as string, false, false, undefined);
  return [...new Set(metadatas.map((metadata) => metadata.propertyName))];
}

/** A query as Fastify parses one: an object without a prototype, so `__proto__` can be an ordinary key. */
function fastifyQuery(entries: Array<[string, unknown]>): Record<string, unknown> {
  const query = Object.create(null) as Record<string, unknown>;
  for (const [key, value] of entries) Object.defineProperty(query, key, { value, enumerable: true, writable: true, configurable: true });
  return query;
}

type Outcome = { ok: true; value: unknown; constructor: unknown } | { ok: false; status: number; body: unknown };

async function outcome(run: () => unknown): Promise<Outcome> {
  try {
    const value = await run();
    return { ok: true, value: { ...(value as object) }, constructor: (value as object).constructor };
  } catch (error) {
    if (!(error instanceof HttpException)) throw error;
    return { ok: false, status: error.getStatus(), body: error.getResponse() };
  }
}

const queryMetadata = (metatype: Type<unknown>): ArgumentMetadata => ({ type: 'query', metatype, data: undefined });

describe('CompiledQueryPipe', () => {
  it('answers every query of every query class exactly as the strict ValidationPipe does, and takes the fast path for each query that pipe accepts with string values', async () => {
    const next = random(20_261_123);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
    let accepted = 0;
    let refused = 0;
    for (const metatype of QUERY_CLASSES) {
      const properties = propertiesOf(metatype);
      expect(properties.length).toBeGreaterThan(0);
      for (let round = 0; round < 400; round += 1) {
        const size = Math.floor(next() * 4);
        const entries = new Map<string, unknown>();
        for (let i = 0; i < size; i += 1) entries.set(next() < 0.1 ? pick(EXTRA_KEYS) : pick(properties), pick(VALUES));
        // A quarter of the rounds use only values valid for most rules, so that accepted queries are common.
        if (round % 4 === 0) for (const key of [...entries.keys()]) entries.set(key, pick(['project-001', '2025-Q1', '2024-02-29', '50']));
        const query = (): Record<string, unknown> => fastifyQuery([...entries]);
        const expected = await outcome(() => strictValidationPipe().transform(query(), queryMetadata(metatype)));
        const actual = await outcome(() => new CompiledQueryPipe(strictValidationPipe()).transform(query(), queryMetadata(metatype)));
        expect({ metatype: metatype.name, query: [...entries], outcome: actual }).toEqual({
          metatype: metatype.name,
          query: [...entries],
          outcome: expected,
        });
        if (expected.ok) {
          accepted += 1;
          if ([...entries.values()].every((value) => typeof value === 'string')) {
            expect({ metatype: metatype.name, query: [...entries], fast: compileQuery(metatype)!(query()) !== undefined }).toEqual({
              metatype: metatype.name,
              query: [...entries],
              fast: true,
            });
          }
        } else {
          refused += 1;
        }
      }
    }
    // Both branches were exercised in earnest.
    expect(accepted).toBeGreaterThan(1_000);
    expect(refused).toBeGreaterThan(1_000);
  });

  it('turns the page size into a number, as the ToInteger transform does through class-transformer', async () => {
    const [list] = RECORD_RESOURCES.map((resource) => recordQueryClasses(resource).list);
    const pipe = new CompiledQueryPipe({ transform: () => 'the fallback ran' });
    const value = (await pipe.transform(fastifyQuery([['limit', '25'], ['project_id', 'p-1']]), queryMetadata(list!))) as Record<string, unknown>;
    expect(value).toBeInstanceOf(list!);
    expect({ ...value }).toEqual(expect.objectContaining({ limit: 25, project_id: 'p-1' }));
  });

  it('hands the query to the wrapped pipe when a rule fails, a key is unknown or repeated, and for bodies', () => {
    const fallback = { transform: jest.fn(() => 'the fallback ran') };
    const pipe = new CompiledQueryPipe(fallback);
    expect(pipe.transform(fastifyQuery([['project_id', 'not an id']]), queryMetadata(ProjectScopedQuery))).toBe('the fallback ran');
    expect(pipe.transform(fastifyQuery([['foo', 'x']]), queryMetadata(ProjectScopedQuery))).toBe('the fallback ran');
    expect(pipe.transform(fastifyQuery([['project_id', ['a', 'b']]]), queryMetadata(ProjectScopedQuery))).toBe('the fallback ran');
    expect(pipe.transform(fastifyQuery([['constructor', 'x']]), queryMetadata(ProjectScopedQuery))).toBe('the fallback ran');
    expect(pipe.transform({ project_id: 'p-1' }, { type: 'body', metatype: ProjectScopedQuery, data: undefined })).toBe('the fallback ran');
    expect(pipe.transform('7', { type: 'query', metatype: Number, data: 'limit' })).toBe('the fallback ran');
    expect(fallback.transform).toHaveBeenCalledTimes(6);
    expect(pipe.transform(fastifyQuery([['project_id', 'p-1']]), queryMetadata(ProjectScopedQuery))).toEqual(
      expect.objectContaining({ project_id: 'p-1' }),
    );
    expect(fallback.transform).toHaveBeenCalledTimes(6);
  });

  it('leaves to the wrapped pipe every class whose rules it does not compile', () => {
    class Nested {
      @IsString()
      name!: string;
    }
    class WithNested {
      @IsOptional()
      @ValidateNested()
      nested?: Nested;
    }
    class WithEach {
      @IsOptional()
      @IsString({ each: true })
      names?: string[];
    }
    expect(compileQuery(WithNested)).toBeNull();
    expect(compileQuery(WithEach)).toBeNull();
    expect(compileQuery(ProjectScopedQuery)).not.toBeNull();
  });
});
