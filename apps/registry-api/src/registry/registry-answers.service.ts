import { Injectable } from '@nestjs/common';
import type {
  CollectionPage,
  CreditsIssued,
  EmissionReductionClaim,
  FuelUsage,
  HouseholdStats,
  StoveStacking,
} from '@dmrv/contracts';
import type { JsonAnswer } from '../http/rendered-json';
import { AggregateAnswerCache } from './aggregate-cache';
import {
  CollectionParams,
  EmissionReductionQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  RecordQuery,
  StoveStackingListQuery,
  StoveStackingQuery,
} from './dto/registry-queries';
import { EmptySelections } from './empty-selections';
import { EMISSION_REDUCTION_CLAIMS, RecordResource } from './record-resources';
import { RegistryService } from './registry.service';

/**
 * The answer of each operation, as routes return it: a `RenderedJson` where the answer is kept (aggregates that depend
 * only on the rollups and `projects`, between refreshes; most recent records, until their table changes), a plain
 * body otherwise. A selection that names nothing is a 404, or the operation's zero value with EMPTY_AS=zero.
 */
@Injectable()
export class RegistryAnswers {
  constructor(
    private readonly registry: RegistryService,
    private readonly aggregates: AggregateAnswerCache,
    private readonly empty: EmptySelections,
  ) {}

  householdStats(query: HouseholdStatsQuery): Promise<JsonAnswer<HouseholdStats>> {
    const scope = { projectId: query.project_id, region: query.region };
    return this.empty.answer('getHouseholdStats', () =>
      this.aggregates.getOrCompute('households/stats', query, () => this.registry.householdStats(scope)),
    );
  }

  stoveStacking(query: StoveStackingQuery): Promise<JsonAnswer<StoveStacking>> {
    const scope = { projectId: query.project_id, region: query.region };
    return this.empty.answer('getStoveStackingData', () =>
      this.aggregates.getOrCompute('households/stove-stacking', query, () =>
        this.registry.stoveStacking(scope, query.fuel_type),
      ),
    );
  }

  stoveStackingList(query: StoveStackingListQuery): Promise<JsonAnswer<CollectionPage<StoveStacking>>> {
    const scope = { projectId: query.project_id, region: query.region };
    const compute = () => this.registry.stoveStackingPage(scope, query.limit, query.cursor);
    return this.empty.answer(
      'listStoveStackingData',
      () => this.aggregates.getOrCompute('households/stove-stacking/list', query, compute),
      query.limit,
    );
  }

  fuelUsage(query: FuelUsageQuery): Promise<JsonAnswer<FuelUsage>> {
    return this.empty.answer<JsonAnswer<FuelUsage>>('getFuelUsage', () =>
      // One household's sum reads its raw readings, which change without a refresh: never kept.
      query.household_id !== undefined
        ? this.registry.fuelUsage(query)
        : this.aggregates.getOrCompute('fuel-usage', query, () => this.registry.fuelUsage(query)),
    );
  }

  issuedCredits(query: IssuedCreditsQuery): Promise<JsonAnswer<CreditsIssued>> {
    return this.empty.answer('getIssuedCredits', () =>
      this.aggregates.getOrCompute('credits/issued', query, () =>
        this.registry.creditsIssued(query.project_id, query.time_period),
      ),
    );
  }

  emissionReductionClaims(query: EmissionReductionQuery): Promise<JsonAnswer<EmissionReductionClaim>> {
    return this.empty.answer<JsonAnswer<EmissionReductionClaim>>('getEmissionReductionClaims', () =>
      // Without a period the answer is the latest stored claim: a record, read (and kept) as records are.
      query.period === undefined && query.time_period === undefined
        ? this.registry.latestRendered(EMISSION_REDUCTION_CLAIMS, { project_id: query.project_id })
        : this.aggregates.getOrCompute('claims/emission-reduction', query, () =>
            this.registry.emissionReductions(query),
          ),
    );
  }

  latestRecord<T>(resource: RecordResource<T>, query: RecordQuery): Promise<JsonAnswer<T>> {
    return this.empty.answer(resource.endpoint.operationId, () =>
      this.registry.latestRendered(resource, { ...query }),
    );
  }

  recordPage<T>(
    resource: RecordResource<T>,
    query: RecordQuery & CollectionParams,
  ): Promise<JsonAnswer<CollectionPage<T>>> {
    return this.empty.answer(
      resource.endpoint.listOperationId,
      () => this.registry.page(resource, { ...query }),
      query.limit,
    );
  }
}
