import { Controller, Get, Query } from '@nestjs/common';
import type {
  CollectionPage,
  CreditsCancelled,
  CreditsIssued,
  CreditsRetired,
  CreditsTransferred,
  DeviceStatus,
  EmissionReductionClaim,
  FuelDeliveryClaim,
  FuelPurchaseClaim,
  FuelUsage,
  HouseholdOnboardingClaim,
  HouseholdStats,
  StoveStacking,
} from '@dmrv/contracts';
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
@Controller()
export class RegistryController {
  constructor(private readonly registry: RegistryService) {}

  @Get('households/stats')
  householdStats(@Query() query: HouseholdStatsQuery): Promise<HouseholdStats> {
    return this.registry.householdStats({ projectId: query.project_id, region: query.region });
  }

  @Get('households/stove-stacking')
  stoveStacking(@Query() query: StoveStackingQuery): Promise<StoveStacking> {
    return this.registry.stoveStacking({ projectId: query.project_id, region: query.region }, query.fuel_type);
  }

  @Get('households/stove-stacking/list')
  stoveStackingList(@Query() query: StoveStackingListQuery): Promise<CollectionPage<StoveStacking>> {
    return this.registry.stoveStackingPage({ projectId: query.project_id, region: query.region }, query.limit, query.cursor);
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
  fuelUsage(@Query() query: FuelUsageQuery): Promise<FuelUsage> {
    return this.registry.fuelUsage(query);
  }

  @Get('credits/issued')
  issuedCredits(@Query() query: IssuedCreditsQuery): Promise<CreditsIssued> {
    return this.registry.creditsIssued(query.project_id, query.time_period);
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
  emissionReductionClaims(@Query() query: EmissionReductionQuery): Promise<EmissionReductionClaim> {
    return this.registry.emissionReductions(query);
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
