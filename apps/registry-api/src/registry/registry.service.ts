import { Injectable } from '@nestjs/common';
import type {
  CollectionPage,
  CreditsIssued,
  EmissionReductionClaim,
  FuelUsage,
  HouseholdStats,
  StoveStacking,
} from '@dmrv/contracts';
import { InvalidInputError, NotFoundError } from '@dmrv/errors';
import { isCalendarDate, isEpochMicroseconds, isPlainText } from '../domain/calendar';
import { CursorFormatError, CursorKey, decodeCursor, encodeCursor } from '../domain/cursor';
import { isCanonicalCombination, parseCombination } from '../domain/fuel-combination';
import { parsePeriod } from '../domain/period';
import { RenderedJson, renderJson } from '../http/rendered-json';
import { aggregateKey } from './aggregate-cache';
import { CollectionParams, DEFAULT_LIMIT } from './dto/registry-queries';
import { RecordFilters } from './record-query';
import { CollectionTotals, LatestRecordAnswers } from './record-answer-cache';
import { EMISSION_REDUCTION_CLAIMS, RecordResource, recordTable } from './record-resources';
import { AggregateScope, RegistryRepository } from './registry.repository';

/** Common parameters of a record request, already validated by the pipe. */
export interface RecordRequest {
  project_id?: string;
  time_period?: string;
  [selector: string]: unknown;
}

function percentage(part: number, whole: number): number {
  return Math.round((10000 * part) / whole) / 100;
}

function intersectRange(
  a: { from?: string; to?: string },
  b: { from?: string; to?: string },
): { from?: string; to?: string } {
  const from = a.from && b.from ? (a.from > b.from ? a.from : b.from) : (a.from ?? b.from);
  const to = a.to && b.to ? (a.to < b.to ? a.to : b.to) : (a.to ?? b.to);
  return { from, to };
}

@Injectable()
export class RegistryService {
  constructor(
    private readonly repository: RegistryRepository,
    private readonly latestAnswers: LatestRecordAnswers,
    private readonly totals: CollectionTotals,
  ) {}

  private async assertScope(scope: AggregateScope): Promise<void> {
    if (scope.projectId !== undefined && !(await this.repository.projectExists(scope.projectId))) {
      throw new NotFoundError(`No project ${scope.projectId}`);
    }
    if (scope.region !== undefined && !(await this.repository.regionExists(scope.region))) {
      throw new NotFoundError(`No household in region ${scope.region}`);
    }
  }

  async householdStats(scope: AggregateScope): Promise<HouseholdStats> {
    await this.assertScope(scope);
    const density = await this.repository.densityCounts(scope);
    return { total_households: density.low + density.medium + density.high, density };
  }

  async stoveStacking(scope: AggregateScope, fuelType?: string): Promise<StoveStacking> {
    await this.assertScope(scope);
    const combinations = await this.repository.combinations(scope);
    const total = combinations.reduce((sum, entry) => sum + entry.households, 0);
    if (total === 0) throw new NotFoundError('No household with recorded fuels in this selection');
    if (fuelType === undefined) {
      const top = combinations[0]!;
      return { fuel_type: top.combination, percentage: percentage(top.households, total) };
    }
    const wanted = parseCombination(fuelType);
    const match = combinations.find((entry) => entry.combination === wanted);
    return { fuel_type: wanted, percentage: percentage(match?.households ?? 0, total) };
  }

  /** The distribution, in name order: counts change as households join, names do not, so pages stay stable. */
  async stoveStackingPage(
    scope: AggregateScope,
    limit = DEFAULT_LIMIT,
    cursor?: string,
  ): Promise<CollectionPage<StoveStacking>> {
    await this.assertScope(scope);
    const after = cursor === undefined ? null : this.decodeCombinationCursor(cursor);
    const combinations = (await this.repository.combinations(scope)).sort((a, b) =>
      a.combination < b.combination ? -1 : 1,
    );
    const total = combinations.reduce((sum, entry) => sum + entry.households, 0);
    const remaining =
      after === null ? combinations : combinations.filter((entry) => entry.combination > after);
    const page = remaining.slice(0, limit);
    const hasMore = remaining.length > limit;
    return {
      data: page.map((entry) => ({
        fuel_type: entry.combination,
        percentage: percentage(entry.households, total),
      })),
      page_info: {
        next_cursor: hasMore ? encodeCursor([page[page.length - 1]!.combination]) : null,
        has_more: hasMore,
        limit,
      },
      total_count: combinations.length,
    };
  }

  async fuelUsage(query: {
    household_id?: string;
    region?: string;
    project_id?: string;
    from?: string;
    to?: string;
  }): Promise<FuelUsage> {
    const from = query.from ?? null;
    const to = query.to ?? null;
    if (from && to && from > to) throw new InvalidInputError('from must not be after to');
    if (query.household_id !== undefined) {
      const region = await this.repository.householdRegion(query.household_id);
      if (region === null) throw new NotFoundError(`No household ${query.household_id}`);
      if (query.region !== undefined && query.region !== region) {
        throw new NotFoundError(`Household ${query.household_id} is not in region ${query.region}`);
      }
      if (query.project_id !== undefined) await this.assertScope({ projectId: query.project_id });
      const fuel = await this.repository.fuelConsumedByHousehold(query.household_id, from, to);
      return { household_id: query.household_id, fuel_consumed: fuel, region };
    }
    const scope = { projectId: query.project_id, region: query.region };
    await this.assertScope(scope);
    const fuel = await this.repository.fuelConsumedInScope(scope, from, to);
    return query.region === undefined
      ? { fuel_consumed: fuel }
      : { fuel_consumed: fuel, region: query.region };
  }

  async creditsIssued(projectId: string, timePeriod: string): Promise<CreditsIssued> {
    const period = parsePeriod(timePeriod);
    await this.assertScope({ projectId });
    const credits = await this.repository.creditsIssued(projectId, period.start, period.end);
    return { project_id: projectId, time_period: period.label, credits };
  }

  async emissionReductions(query: {
    project_id?: string;
    period?: string;
    time_period?: string;
  }): Promise<EmissionReductionClaim> {
    if (query.period !== undefined && query.time_period !== undefined && query.period !== query.time_period) {
      throw new InvalidInputError('period and time_period disagree: send one of them');
    }
    const label = query.period ?? query.time_period;
    if (label !== undefined) {
      if (query.project_id === undefined)
        throw new InvalidInputError('project_id is required when a period is given');
      const period = parsePeriod(label);
      const reductions = await this.repository.emissionReductions(query.project_id, period.start, period.end);
      if (reductions === null) throw new NotFoundError(`No project ${query.project_id}`);
      return { project_id: query.project_id, period: period.label, reductions };
    }
    return this.latest(EMISSION_REDUCTION_CLAIMS, { project_id: query.project_id });
  }

  /** The record the selectors name, or the most recent one; 404 when nothing matches. */
  async latest<T>(resource: RecordResource<T>, request: RecordRequest): Promise<T> {
    const record = await this.repository.latestRecord(resource, this.filters(resource, request));
    if (!record) throw new NotFoundError(`No ${resource.name} matches the request`);
    return record;
  }

  /**
   * `latest`, rendered, from memory while the record's table has not changed (see `RecordAnswerCache`): the most recent
   * record is what a registry polls, and its answer changes only when its table does.
   */
  async latestRendered<T>(resource: RecordResource<T>, request: RecordRequest): Promise<RenderedJson<T>> {
    const filters = this.filters(resource, request);
    const answer = await this.latestAnswers.getOrCompute(
      recordTable(resource),
      resource.endpoint.path,
      aggregateKey('', filters),
      async () => {
        const record = await this.repository.latestRecord(resource, filters);
        return record
          ? { kind: 'ok' as const, rendered: renderJson(record) }
          : { kind: 'not-found' as const, message: `No ${resource.name} matches the request` };
      },
    );
    if (answer.kind === 'not-found') throw new NotFoundError(answer.message);
    return answer.rendered as RenderedJson<T>;
  }

  async page<T>(
    resource: RecordResource<T>,
    request: RecordRequest & CollectionParams,
  ): Promise<CollectionPage<T>> {
    const filters = this.filters(resource, request);
    const range = intersectRange(filters, { from: request.from, to: request.to });
    if (range.from && range.to && range.from > range.to)
      throw new InvalidInputError('from must not be after to');
    const scoped: RecordFilters = { ...filters, ...range, updatedSince: request.updated_since };
    const limit = request.limit ?? DEFAULT_LIMIT;
    const after = request.cursor === undefined ? null : this.decodeRecordCursor(resource, request.cursor);
    // The total is counted once, for the first page, and travels in the cursor: an exact count scans every matching
    // row, which would make each of a sync's thousands of pages cost as much as the whole collection. The first page's
    // count is kept until the table changes, so syncs that start over an unchanged table do not scan it again.
    const [page, total] = await Promise.all([
      this.repository.recordPage(resource, scoped, after?.key ?? null, limit),
      after
        ? after.total
        : this.totals.getOrCompute(
            recordTable(resource),
            `${resource.endpoint.path}/list`,
            aggregateKey('', scoped),
            () => this.repository.recordCount(resource, scoped),
          ),
    ]);
    return {
      data: page.items,
      page_info: {
        next_cursor: page.hasMore && page.lastKey ? encodeCursor([...page.lastKey, total]) : null,
        has_more: page.hasMore,
        limit,
      },
      total_count: total,
    };
  }

  private filters(resource: RecordResource<unknown>, request: RecordRequest): RecordFilters {
    const selectors: Record<string, string> = {};
    for (const name of Object.keys(resource.selectors)) {
      const value = request[name];
      if (typeof value === 'string') selectors[name] = value;
    }
    const period = request.time_period === undefined ? undefined : parsePeriod(request.time_period);
    return { selectors, projectId: request.project_id, from: period?.start, to: period?.end };
  }

  /**
   * A record cursor is `[date, id, total]`: the key of the last row read and the total of the first page. One that
   * decodes but holds a key this collection cannot have (a day that does not exist, a NUL, an instant outside the
   * years 0001–9999, a negative count) is as bad as one that does not decode, and is refused before any SQL runs.
   */
  private decodeRecordCursor(
    resource: RecordResource<unknown>,
    cursor: string,
  ): { key: CursorKey; total: number } {
    const decoded = this.decode(cursor, 3);
    const [date, id, total] = decoded as [unknown, unknown, unknown];
    const dateOk =
      typeof date === 'string' &&
      (resource.dateType === 'date' ? isCalendarDate(date) : isEpochMicroseconds(date));
    const idOk =
      typeof id === 'string' &&
      (resource.idType === 'bigint' ? /^\d{1,18}$/.test(id) : id.length > 0 && isPlainText(id));
    const totalOk = typeof total === 'number' && Number.isSafeInteger(total) && total >= 0;
    if (!dateOk || !idOk || !totalOk)
      throw new InvalidInputError('cursor is not a cursor of this collection');
    return { key: [date, id], total };
  }

  /** A stove-stacking cursor is `[combination]`, written as the service writes combinations. */
  private decodeCombinationCursor(cursor: string): string {
    const [combination] = this.decode(cursor, 1);
    if (typeof combination !== 'string' || !isCanonicalCombination(combination)) {
      throw new InvalidInputError('cursor is not a cursor of this collection');
    }
    return combination;
  }

  private decode(cursor: string, arity: number): CursorKey {
    try {
      return decodeCursor(cursor, arity);
    } catch (error) {
      if (error instanceof CursorFormatError) throw new InvalidInputError(`cursor ${error.message}`);
      throw error;
    }
  }
}
