import { Controller, Get, Query, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type {
  CollectionPage,
  CreditsCancelled,
  CreditsRetired,
  CreditsTransferred,
  DeviceStatus,
  EmissionReductionClaim,
  FuelDeliveryClaim,
  FuelPurchaseClaim,
  FuelUsage,
  HouseholdOnboardingClaim,
} from '@dmrv/contracts';
import { sendRendered } from '../http/http-cache';
import { AggregateAnswers } from './aggregate-cache';
import {
  CancelledListQuery,
  CreditIdQuery,
  DeviceStatusListQuery,
  DeviceStatusQuery,
  EmissionReductionListQuery,
  EmissionReductionQuery,
  FuelDeliveryListQuery,
  FuelDeliveryQuery,
  FuelPurchaseListQuery,
  FuelPurchaseQuery,
  FuelUsageQuery,
  HouseholdStatsQuery,
  IssuedCreditsQuery,
  OnboardingListQuery,
  OnboardingQuery,
  RetiredListQuery,
  StoveStackingListQuery,
  StoveStackingQuery,
  TransferListQuery,
  TransferQuery,
} from './dto/registry-queries';
import {
  CREDITS_CANCELLED,
  CREDITS_RETIRED,
  CREDITS_TRANSFERRED,
  DEVICE_STATUS,
  EMISSION_REDUCTION_CLAIMS,
  EmissionReductionRow,
  FUEL_DELIVERIES,
  FUEL_PURCHASES,
  HOUSEHOLD_ONBOARDING,
} from './record-resources';
import { RegistryService } from './registry.service';

// The 12 operations of the original contract keep their paths; each `/list` path is the additive collection view
// of the same resource (see the README and the OpenAPI document for the paging convention).
// Aggregates that depend only on the rollups and `projects` are answered through `AggregateAnswers` (rendered JSON
// kept between refreshes); they return that JSON text with its entity tag already set on the reply.
@Controller()
export class RegistryController {
  constructor(
    private readonly registry: RegistryService,
    private readonly aggregates: AggregateAnswers,
  ) {}

  @Get('households/stats')
  async householdStats(@Query() query: HouseholdStatsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const scope = { projectId: query.project_id, region: query.region };
    return sendRendered(reply, await this.aggregates.answer('households/stats', query, () => this.registry.householdStats(scope)));
  }

  @Get('households/stove-stacking')
  async stoveStacking(@Query() query: StoveStackingQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const scope = { projectId: query.project_id, region: query.region };
    return sendRendered(reply, await this.aggregates.answer('households/stove-stacking', query, () => this.registry.stoveStacking(scope, query.fuel_type)));
  }

  @Get('households/stove-stacking/list')
  async stoveStackingList(@Query() query: StoveStackingListQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const scope = { projectId: query.project_id, region: query.region };
    const compute = () => this.registry.stoveStackingPage(scope, query.limit, query.cursor);
    return sendRendered(reply, await this.aggregates.answer('households/stove-stacking/list', query, compute));
  }

  @Get('devices/status')
  deviceStatus(@Query() query: DeviceStatusQuery): Promise<DeviceStatus> {
    return this.registry.latest(DEVICE_STATUS, { ...query });
  }

  @Get('devices/status/list')
  deviceStatusList(@Query() query: DeviceStatusListQuery): Promise<CollectionPage<DeviceStatus>> {
    return this.registry.page(DEVICE_STATUS, { ...query });
  }

  // `/fuel/usage` is how part of the published documentation spells it; clients built from it exist.
  @Get(['fuel-usage', 'fuel/usage'])
  async fuelUsage(@Query() query: FuelUsageQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<FuelUsage | string> {
    // One household's sum reads its raw readings, which change without a refresh: never cached.
    if (query.household_id !== undefined) return this.registry.fuelUsage(query);
    return sendRendered(reply, await this.aggregates.answer('fuel-usage', query, () => this.registry.fuelUsage(query)));
  }

  @Get('credits/issued')
  async issuedCredits(@Query() query: IssuedCreditsQuery, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    const compute = () => this.registry.creditsIssued(query.project_id, query.time_period);
    return sendRendered(reply, await this.aggregates.answer('credits/issued', query, compute));
  }

  @Get('credits/cancelled')
  cancelledCredits(@Query() query: CreditIdQuery): Promise<CreditsCancelled> {
    return this.registry.latest(CREDITS_CANCELLED, { ...query });
  }

  @Get('credits/cancelled/list')
  cancelledCreditsList(@Query() query: CancelledListQuery): Promise<CollectionPage<CreditsCancelled>> {
    return this.registry.page(CREDITS_CANCELLED, { ...query });
  }

  @Get('credits/transferred')
  transferredCredits(@Query() query: TransferQuery): Promise<CreditsTransferred> {
    return this.registry.latest(CREDITS_TRANSFERRED, { ...query });
  }

  @Get('credits/transferred/list')
  transferredCreditsList(@Query() query: TransferListQuery): Promise<CollectionPage<CreditsTransferred>> {
    return this.registry.page(CREDITS_TRANSFERRED, { ...query });
  }

  @Get('credits/retired')
  retiredCredits(@Query() query: CreditIdQuery): Promise<CreditsRetired> {
    return this.registry.latest(CREDITS_RETIRED, { ...query });
  }

  @Get('credits/retired/list')
  retiredCreditsList(@Query() query: RetiredListQuery): Promise<CollectionPage<CreditsRetired>> {
    return this.registry.page(CREDITS_RETIRED, { ...query });
  }

  @Get('claims/fuel-purchase')
  fuelPurchaseClaims(@Query() query: FuelPurchaseQuery): Promise<FuelPurchaseClaim> {
    return this.registry.latest(FUEL_PURCHASES, { ...query });
  }

  @Get('claims/fuel-purchase/list')
  fuelPurchaseClaimsList(@Query() query: FuelPurchaseListQuery): Promise<CollectionPage<FuelPurchaseClaim>> {
    return this.registry.page(FUEL_PURCHASES, { ...query });
  }

  @Get('claims/fuel-delivery')
  fuelDeliveryClaims(@Query() query: FuelDeliveryQuery): Promise<FuelDeliveryClaim> {
    return this.registry.latest(FUEL_DELIVERIES, { ...query });
  }

  @Get('claims/fuel-delivery/list')
  fuelDeliveryClaimsList(@Query() query: FuelDeliveryListQuery): Promise<CollectionPage<FuelDeliveryClaim>> {
    return this.registry.page(FUEL_DELIVERIES, { ...query });
  }

  @Get('claims/emission-reduction')
  async emissionReductionClaims(
    @Query() query: EmissionReductionQuery,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<EmissionReductionClaim | string> {
    // Without a period the answer is the latest stored claim: a record, read as records are.
    if (query.period === undefined && query.time_period === undefined) return this.registry.emissionReductions(query);
    return sendRendered(reply, await this.aggregates.answer('claims/emission-reduction', query, () => this.registry.emissionReductions(query)));
  }

  @Get('claims/emission-reduction/list')
  emissionReductionClaimsList(@Query() query: EmissionReductionListQuery): Promise<CollectionPage<EmissionReductionRow>> {
    return this.registry.page(EMISSION_REDUCTION_CLAIMS, { ...query });
  }

  @Get('claims/household-onboarding')
  householdOnboardingClaims(@Query() query: OnboardingQuery): Promise<HouseholdOnboardingClaim> {
    return this.registry.latest(HOUSEHOLD_ONBOARDING, { ...query });
  }

  @Get('claims/household-onboarding/list')
  householdOnboardingClaimsList(@Query() query: OnboardingListQuery): Promise<CollectionPage<HouseholdOnboardingClaim>> {
    return this.registry.page(HOUSEHOLD_ONBOARDING, { ...query });
  }
}
