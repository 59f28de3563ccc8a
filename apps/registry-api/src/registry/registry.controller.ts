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
import { CollectionOperation, RegistryOperation } from './api-operations';
import {
  CreditsIssuedBody,
  EmissionReductionClaimBody,
  FuelUsageBody,
  HouseholdStatsBody,
  StoveStackingBody,
  StoveStackingPage,
} from './dto/registry-answers.dto';
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

const PERIOD_TEXT = 'YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM';
const FUEL_USAGE = {
  tag: 'Fuel Management',
  summary: 'Get fuel usage',
  description:
    'Sum of fuel consumed, in kilograms, over the selection (household_id, region, project_id) and the inclusive ' +
    'dates from/to. Fields that do not apply to the selection are omitted: household_id only with a household, ' +
    'region only with a household or a region. Also served at /fuel/usage (as part of the published docs spell it).',
  answer: FuelUsageBody,
};

// The aggregate operations of the original contract (the record resources' routes are in records.controller.ts).
// Method names are operationIds.
@Controller()
export class RegistryController {
  constructor(private readonly answers: RegistryAnswers) {}

  @Get('households/stats')
  @RegistryOperation({
    tag: 'Household Information',
    summary: 'Get household statistics',
    description: 'Counts over all serviced households, optionally of one region and/or project.',
    answer: HouseholdStatsBody,
  })
  getHouseholdStats(@Query() query: HouseholdStatsQuery): Answer<HouseholdStats> {
    return this.answers.householdStats(query);
  }

  @Get('households/stove-stacking')
  @RegistryOperation({
    tag: 'Household Information',
    summary: 'Get stove stacking data',
    description:
      'The most common fuel combination and the percentage (0–100, two decimals) of households with recorded fuels ' +
      'that use exactly it; or the combination named by fuel_type. Combinations list their fuels in the fixed order ' +
      'LPG, Electricity, Ethanol, Biogas, Kerosene, Charcoal, Biomass, joined by " + ".',
    answer: StoveStackingBody,
  })
  getStoveStackingData(@Query() query: StoveStackingQuery): Answer<StoveStacking> {
    return this.answers.stoveStacking(query);
  }

  @Get('households/stove-stacking/list')
  @CollectionOperation({
    tag: 'Household Information',
    summary: 'Get stove stacking data',
    answer: StoveStackingPage,
  })
  listStoveStackingData(@Query() query: StoveStackingListQuery): Answer<CollectionPage<StoveStacking>> {
    return this.answers.stoveStackingList(query);
  }

  @Get('fuel-usage')
  @RegistryOperation(FUEL_USAGE)
  getFuelUsage(@Query() query: FuelUsageQuery): Answer<FuelUsage> {
    return this.answers.fuelUsage(query);
  }

  // How part of the published documentation spells `/fuel-usage`; clients built from it exist.
  @Get('fuel/usage')
  @RegistryOperation({
    ...FUEL_USAGE,
    description: `Same as GET /fuel-usage. ${FUEL_USAGE.description}`,
    extension: true,
  })
  getFuelUsageAtFuelPath(@Query() query: FuelUsageQuery): Answer<FuelUsage> {
    return this.answers.fuelUsage(query);
  }

  @Get('credits/issued')
  @RegistryOperation({
    tag: 'Carbon Credits',
    summary: 'Get issued credits',
    description: `Credits issued to the project with an issuance date in time_period (${PERIOD_TEXT}); 0 when none; 404 for an unknown project.`,
    answer: CreditsIssuedBody,
  })
  getIssuedCredits(@Query() query: IssuedCreditsQuery): Answer<CreditsIssued> {
    return this.answers.issuedCredits(query);
  }

  @Get('claims/emission-reduction')
  @RegistryOperation({
    tag: 'Claims Management',
    summary: 'Get emission reduction claims',
    description:
      'With project_id and period: reductions of the project in the period, in whole tCO2e rounded down, computed as ' +
      "fuel (t) × NCV (TJ/t) × (fNRB × EF_CO2 + EF_non-CO2) (tCO2e/TJ) with the project's parameters. Without a period: " +
      'the most recent quarterly claim (of the project, if given). A period without project_id is a 400.',
    answer: EmissionReductionClaimBody,
  })
  getEmissionReductionClaims(@Query() query: EmissionReductionQuery): Answer<EmissionReductionClaim> {
    return this.answers.emissionReductionClaims(query);
  }
}
