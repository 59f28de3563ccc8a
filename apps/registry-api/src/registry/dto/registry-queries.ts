import {
  REGISTRY_PAGE_LIMIT_DEFAULT,
  REGISTRY_PAGE_LIMIT_MAX,
  REGISTRY_PARAMETER_MAX_LENGTH as MAX,
} from '@dmrv/contracts';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { PERIOD_PATTERN_SOURCE } from '../../domain/period';
import { EXTENSION } from '../api-operations';
import type { RecordResource, Selector, SelectorKind } from '../record-resources';
import {
  IsCalendarDate,
  IsFuelCombination,
  IsPeriod,
  IsPlainText,
  IsUtcDateTime,
  MaxChars,
  ToInteger,
} from './query-validators';

// Query parameters of every endpoint (those of the record resources are derived from their declarations in
// record-resources.ts). The global pipe rejects any parameter not declared here (400 naming it):
// integrators complain most about filters that are silently ignored. Every string parameter has a maximum length
// (MaxChars, written last so that it is checked first), documented as the OpenAPI schema's maxLength. Each
// parameter's `@ApiProperty` is its OpenAPI description; those this service adds to the original contract are optional
// and marked `x-extension`.

type SchemaOf = { type: 'string' | 'integer' } & Record<string, unknown>;

/** An optional parameter this service adds, as the OpenAPI document describes it. */
const Documented = (description: string, schema: SchemaOf): PropertyDecorator =>
  ApiPropertyOptional({ ...schema, description, ...EXTENSION });

/** An inherited parameter, described as this query class means it (the rest of its documentation is inherited). */
const Described = (description: string): PropertyDecorator => ApiPropertyOptional({ description });

const ID_SCHEMA: SchemaOf = { type: 'string', maxLength: MAX.identifier };
const TEXT_SCHEMA: SchemaOf = { type: 'string', maxLength: MAX.text };
const DATE_SCHEMA: SchemaOf = { type: 'string', format: 'date', maxLength: MAX.date };
const PERIOD_SCHEMA: SchemaOf = {
  type: 'string',
  pattern: PERIOD_PATTERN_SOURCE,
  maxLength: MAX.period,
  example: '2024-Q1',
};
const PERIOD_TEXT = 'YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM';

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const idMessage = (name: string) => ({ message: `${name} must be an identifier (letters, digits, . _ : -)` });

export class ProjectScopedQuery {
  @Documented('Only records of this project (404 when no such project exists)', ID_SCHEMA)
  @IsOptional()
  @IsString()
  @Matches(ID, idMessage('project_id'))
  @MaxChars(MAX.identifier)
  project_id?: string;
}

export class HouseholdStatsQuery extends ProjectScopedQuery {
  @Documented('Only households of this region (404 when none)', TEXT_SCHEMA)
  @IsOptional()
  // Checked last (decorators register bottom-up): a non-string is reported as such, not as a control character.
  @IsPlainText()
  @IsString()
  @IsNotEmpty()
  @MaxChars(MAX.text)
  region?: string;
}

export class StoveStackingQuery extends HouseholdStatsQuery {
  @Documented('A combination such as "LPG + Biomass" (any order and case; + or , between fuels)', {
    type: 'string',
    maxLength: MAX.fuelCombination,
  })
  @IsOptional()
  @IsString()
  @IsFuelCombination()
  @MaxChars(MAX.fuelCombination)
  fuel_type?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the TypeScript mixin pattern requires any[]
type Constructor<T = object> = new (...args: any[]) => T;

/** Adds inclusive calendar-day bounds: `from` and `to`. */
export function DateRange<TBase extends Constructor>(Base: TBase) {
  class DateRangeQuery extends Base {
    @Documented('Records dated on or after this day', DATE_SCHEMA)
    @IsOptional()
    @IsCalendarDate()
    @MaxChars(MAX.date)
    from?: string;

    @Documented('Records dated on or before this day', DATE_SCHEMA)
    @IsOptional()
    @IsCalendarDate()
    @MaxChars(MAX.date)
    to?: string;
  }
  return DateRangeQuery;
}

export class FuelUsageQuery extends DateRange(HouseholdStatsQuery) {
  @Documented('One household (404 when unknown)', ID_SCHEMA)
  @IsOptional()
  @IsString()
  @Matches(ID, idMessage('household_id'))
  @MaxChars(MAX.identifier)
  household_id?: string;

  @Described('One region (404 when no household is in it)')
  declare region?: string;

  @Described('First day included')
  declare from?: string;

  @Described('Last day included')
  declare to?: string;
}

// The original contract's two parameters, documented as it documents them (their bounds are in the README).
const original = (description: string) =>
  ApiProperty({ type: 'string', description, style: 'form' } as object);

export class IssuedCreditsQuery {
  @original('Unique identifier of the project')
  @IsDefined({ message: 'project_id is required' })
  @IsString()
  @Matches(ID, idMessage('project_id'))
  @MaxChars(MAX.identifier)
  project_id!: string;

  @original('Period for which credits were issued')
  @IsDefined({ message: 'time_period is required' })
  @IsString()
  @IsPeriod()
  @MaxChars(MAX.period)
  time_period!: string;
}

export class EmissionReductionQuery extends ProjectScopedQuery {
  @Documented(PERIOD_TEXT, PERIOD_SCHEMA)
  @IsOptional()
  @IsString()
  @IsPeriod()
  @MaxChars(MAX.period)
  period?: string;

  /** Published examples send `time_period` to the claims endpoints; accepted as a synonym of `period`. */
  @Documented('Synonym of period (published examples send it)', PERIOD_SCHEMA)
  @IsOptional()
  @IsString()
  @IsPeriod()
  @MaxChars(MAX.period)
  time_period?: string;
}

/** Filters every record resource accepts on its original path, besides its own selectors. */
export class RecordQuery extends ProjectScopedQuery {
  @Documented(`Only records dated within this period: ${PERIOD_TEXT}`, PERIOD_SCHEMA)
  @IsOptional()
  @IsString()
  @IsPeriod()
  @MaxChars(MAX.period)
  time_period?: string;
}

export interface CollectionParams {
  limit?: number;
  cursor?: string;
  from?: string;
  to?: string;
  updated_since?: string;
}

/** Adds the paging parameters of every collection: `limit` and `cursor`. */
export function Paged<TBase extends Constructor>(Base: TBase) {
  class PagedQuery extends Base {
    @Documented(
      `Page size, default ${REGISTRY_PAGE_LIMIT_DEFAULT}, at most ${REGISTRY_PAGE_LIMIT_MAX} (above is a 400)`,
      { type: 'integer', minimum: 1, maximum: REGISTRY_PAGE_LIMIT_MAX, default: REGISTRY_PAGE_LIMIT_DEFAULT },
    )
    @IsOptional()
    // Decorators register bottom-up and, with stopAtFirstError, the first registered failure is the one reported.
    @Max(REGISTRY_PAGE_LIMIT_MAX, { message: `limit must not be greater than ${REGISTRY_PAGE_LIMIT_MAX}` })
    @Min(1, { message: 'limit must be at least 1' })
    @IsInt({ message: 'limit must be an integer' })
    @ToInteger()
    limit?: number;

    @Documented('page_info.next_cursor of the previous page', { type: 'string', maxLength: MAX.cursor })
    @IsOptional()
    @IsString()
    @MaxChars(MAX.cursor)
    cursor?: string;
  }
  return PagedQuery;
}

/** Adds the paging convention of the record collections: `limit`, `cursor`, `from`/`to`, `updated_since`. */
export function Collection<TBase extends Constructor>(Base: TBase) {
  class CollectionQuery extends DateRange(Paged(Base)) implements CollectionParams {
    @Documented('Records created or changed at or after this instant', {
      type: 'string',
      format: 'date-time',
      maxLength: MAX.dateTime,
    })
    @IsOptional()
    @IsUtcDateTime()
    @MaxChars(MAX.dateTime)
    updated_since?: string;
  }
  return CollectionQuery;
}

/** The stove-stacking distribution pages by combination name; it has no record date to filter on. */
export class StoveStackingListQuery extends Paged(HouseholdStatsQuery) {}

/** Applies property decorators as TypeScript does when they are written above a property: the last one first. */
function decorate(target: object, property: string, decorators: PropertyDecorator[]): void {
  for (const decorator of [...decorators].reverse()) decorator(target, property);
}

const SELECTOR_RULES: Record<SelectorKind, (name: string) => PropertyDecorator[]> = {
  identifier: (name) => [IsOptional(), IsString(), Matches(ID, idMessage(name)), MaxChars(MAX.identifier)],
  // Checked last (decorators register bottom-up): a non-string is reported as such, not as a control character.
  text: () => [IsOptional(), IsPlainText(), IsString(), IsNotEmpty(), MaxChars(MAX.text)],
};

const selectorDocumentation = (selector: Selector): PropertyDecorator =>
  Documented(selector.description, selector.kind === 'identifier' ? ID_SCHEMA : TEXT_SCHEMA);

export interface RecordQueryClasses {
  /** The original path: the selectors, `project_id`, `time_period`. */
  latest: Constructor<RecordQuery>;
  /** The `/list` path: the same, and the collection convention. */
  list: Constructor<RecordQuery & CollectionParams>;
}

/** The query classes of a record resource, derived from its declared selectors. */
export function recordQueryClasses(resource: RecordResource<unknown>): RecordQueryClasses {
  const prefix = resource.endpoint.operationId.replace(/^get/, '');
  class Selectors extends RecordQuery {}
  for (const [name, selector] of Object.entries(resource.selectors))
    decorate(Selectors.prototype, name, [
      selectorDocumentation(selector),
      ...SELECTOR_RULES[selector.kind](name),
    ]);
  class List extends Collection(Selectors) {}
  Object.defineProperty(Selectors, 'name', { value: `${prefix}Query` });
  Object.defineProperty(List, 'name', { value: `${prefix}ListQuery` });
  return { latest: Selectors, list: List };
}

export const DEFAULT_LIMIT = REGISTRY_PAGE_LIMIT_DEFAULT;
