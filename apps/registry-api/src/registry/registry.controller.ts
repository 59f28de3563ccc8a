import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { EmissionReductionClaim, FuelUsage } from '@dmrv/contracts';
import { CompiledRoute } from '@dmrv/http-kit';
import { sendRendered } from '../http/rendered-json';
import { AggregateAnswerCache } from './aggregate-cache';
import { EmptySelections } from './empty-selections';
import { EMISSION_REDUCTION_CLAIMS } from './record-resources';
import {
  EmissionReductionQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  StoveStackingListQuery,
  StoveStackingQuery,
} from './dto/registry-queries';
import { RegistryService } from './registry.service';

// The aggregate operations of the original contract (the record resources' routes are in records.controller.ts).
// Aggregates that depend only on the rollups and `projects` are answered through the aggregate cache (rendered JSON
// kept between refreshes); they return that JSON text with its entity tag already set on the reply. A selection that
// names nothing is a 404, or the operation's zero value with EMPTY_AS=zero (`EmptySelections`).
@Controller()
export class RegistryController {
  constructor(
    private readonly registry: RegistryService,
    private readonly aggregates: AggregateAnswerCache,
    private readonly empty: EmptySelections,
  ) {}

  @Get('households/stats')
  @CompiledRoute()
  householdStats(@Query() query: HouseholdStatsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const scope = { projectId: query.project_id, region: query.region };
    return this.empty.answer('getHouseholdStats', async () =>
      sendRendered(reply, await this.aggregates.getOrCompute('households/stats', query, () => this.registry.householdStats(scope))),
    );
  }

  @Get('households/stove-stacking')
  @CompiledRoute()
  stoveStacking(@Query() query: StoveStackingQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const scope = { projectId: query.project_id, region: query.region };
    const compute = () => this.registry.stoveStacking(scope, query.fuel_type);
    return this.empty.answer('getStoveStackingData', async () =>
      sendRendered(reply, await this.aggregates.getOrCompute('households/stove-stacking', query, compute)),
    );
  }

  @Get('households/stove-stacking/list')
  @CompiledRoute()
  stoveStackingList(@Query() query: StoveStackingListQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const scope = { projectId: query.project_id, region: query.region };
    const compute = () => this.registry.stoveStackingPage(scope, query.limit, query.cursor);
    return this.empty.answer(
      'listStoveStackingData',
      async () => sendRendered(reply, await this.aggregates.getOrCompute('households/stove-stacking/list', query, compute)),
      query.limit,
    );
  }

  // `/fuel/usage` is how part of the published documentation spells it; clients built from it exist.
  @Get(['fuel-usage', 'fuel/usage'])
  @CompiledRoute()
  fuelUsage(@Query() query: FuelUsageQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.empty.answer('getFuelUsage', async (): Promise<FuelUsage | string> => {
      // One household's sum reads its raw readings, which change without a refresh: never cached.
      if (query.household_id !== undefined) return this.registry.fuelUsage(query);
      return sendRendered(reply, await this.aggregates.getOrCompute('fuel-usage', query, () => this.registry.fuelUsage(query)));
    });
  }

  @Get('credits/issued')
  @CompiledRoute()
  issuedCredits(@Query() query: IssuedCreditsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    const compute = () => this.registry.creditsIssued(query.project_id, query.time_period);
    return this.empty.answer('getIssuedCredits', async () =>
      sendRendered(reply, await this.aggregates.getOrCompute('credits/issued', query, compute)),
    );
  }

  @Get('claims/emission-reduction')
  @CompiledRoute()
  emissionReductionClaims(@Query() query: EmissionReductionQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<unknown> {
    return this.empty.answer('getEmissionReductionClaims', async (): Promise<EmissionReductionClaim | string> => {
      // Without a period the answer is the latest stored claim: a record, read (and cached) as records are.
      if (query.period === undefined && query.time_period === undefined) {
        return sendRendered(reply, await this.registry.latestRendered(EMISSION_REDUCTION_CLAIMS, { project_id: query.project_id }));
      }
      const compute = () => this.registry.emissionReductions(query);
      return sendRendered(reply, await this.aggregates.getOrCompute('claims/emission-reduction', query, compute));
    });
  }
}
