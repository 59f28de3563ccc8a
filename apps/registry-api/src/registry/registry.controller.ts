import { Controller, Get, Query } from '@nestjs/common';
import type {
  CollectionPage,
  CreditsIssued,
  EmissionReductionClaim,
  FuelUsage,
  HouseholdStats,
  StoveStacking,
} from '@dmrv/contracts';
import type { JsonAnswer } from '../http/rendered-json';
import {
  EmissionReductionQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  StoveStackingListQuery,
  StoveStackingQuery,
} from './dto/registry-queries';
import { RegistryAnswers } from './registry-answers.service';

type Answer<T> = Promise<JsonAnswer<T>>;

// The aggregate operations of the original contract (the record resources' routes are in records.controller.ts).
// Method names are operationIds.
@Controller()
export class RegistryController {
  constructor(private readonly answers: RegistryAnswers) {}

  @Get('households/stats')
  getHouseholdStats(@Query() query: HouseholdStatsQuery): Answer<HouseholdStats> {
    return this.answers.householdStats(query);
  }

  @Get('households/stove-stacking')
  getStoveStackingData(@Query() query: StoveStackingQuery): Answer<StoveStacking> {
    return this.answers.stoveStacking(query);
  }

  @Get('households/stove-stacking/list')
  listStoveStackingData(@Query() query: StoveStackingListQuery): Answer<CollectionPage<StoveStacking>> {
    return this.answers.stoveStackingList(query);
  }

  @Get('fuel-usage')
  getFuelUsage(@Query() query: FuelUsageQuery): Answer<FuelUsage> {
    return this.answers.fuelUsage(query);
  }

  // How part of the published documentation spells `/fuel-usage`; clients built from it exist.
  @Get('fuel/usage')
  getFuelUsageAtFuelPath(@Query() query: FuelUsageQuery): Answer<FuelUsage> {
    return this.answers.fuelUsage(query);
  }

  @Get('credits/issued')
  getIssuedCredits(@Query() query: IssuedCreditsQuery): Answer<CreditsIssued> {
    return this.answers.issuedCredits(query);
  }

  @Get('claims/emission-reduction')
  getEmissionReductionClaims(@Query() query: EmissionReductionQuery): Answer<EmissionReductionClaim> {
    return this.answers.emissionReductionClaims(query);
  }
}
