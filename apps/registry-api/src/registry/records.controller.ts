import { Controller, Get, Query } from '@nestjs/common';
import type {
  CollectionPage,
  CreditsCancelled,
  CreditsRetired,
  CreditsTransferred,
  DeviceStatus,
  FuelDeliveryClaim,
  FuelPurchaseClaim,
  HouseholdOnboardingClaim,
} from '@dmrv/contracts';
import type { JsonAnswer } from '../http/rendered-json';
import { LatestRecordOperation, RecordListOperation } from './api-operations';
import {
  CreditsCancelledBody,
  CreditsCancelledPage,
  CreditsRetiredBody,
  CreditsRetiredPage,
  CreditsTransferredBody,
  CreditsTransferredPage,
  DeviceStatusBody,
  DeviceStatusPage,
  EmissionReductionClaimPage,
  FuelDeliveryClaimBody,
  FuelDeliveryClaimPage,
  FuelPurchaseClaimBody,
  FuelPurchaseClaimPage,
  HouseholdOnboardingClaimBody,
  HouseholdOnboardingClaimPage,
} from './dto/registry-answers.dto';
import {
  CancelledCreditsListQuery,
  CancelledCreditsQuery,
  DeviceStatusListQuery,
  DeviceStatusQuery,
  EmissionReductionClaimsListQuery,
  FuelDeliveryClaimsListQuery,
  FuelDeliveryClaimsQuery,
  FuelPurchaseClaimsListQuery,
  FuelPurchaseClaimsQuery,
  HouseholdOnboardingClaimsListQuery,
  HouseholdOnboardingClaimsQuery,
  RetiredCreditsListQuery,
  RetiredCreditsQuery,
  TransferredCreditsListQuery,
  TransferredCreditsQuery,
} from './dto/record-queries';
import {
  CREDITS_CANCELLED as CANCELLED,
  CREDITS_RETIRED as RETIRED,
  CREDITS_TRANSFERRED as TRANSFERRED,
  DEVICE_STATUS as DEVICE,
  EMISSION_REDUCTION_CLAIMS as REDUCTIONS,
  EmissionReductionRow,
  FUEL_DELIVERIES as DELIVERIES,
  FUEL_PURCHASES as PURCHASES,
  HOUSEHOLD_ONBOARDING as ONBOARDING,
  listPath,
} from './record-resources';
import { RegistryAnswers } from './registry-answers.service';

type Latest<T> = Promise<JsonAnswer<T>>;
type Page<T> = Promise<JsonAnswer<CollectionPage<T>>>;

/**
 * The routes of the record resources (declared in record-resources.ts): the original path answers the most recent
 * matching record, `/list` pages the same resource (see the README's paging convention). The original path of the
 * emission reduction claims is an aggregate operation, in registry.controller.ts. Method names are operationIds.
 */
@Controller()
export class RecordsController {
  constructor(private readonly answers: RegistryAnswers) {}

  @Get(DEVICE.endpoint.path)
  @LatestRecordOperation(DEVICE, DeviceStatusBody)
  getDeviceStatus(@Query() query: DeviceStatusQuery): Latest<DeviceStatus> {
    return this.answers.latestRecord(DEVICE, query);
  }

  @Get(listPath(DEVICE))
  @RecordListOperation(DEVICE, DeviceStatusPage)
  listDeviceStatus(@Query() query: DeviceStatusListQuery): Page<DeviceStatus> {
    return this.answers.recordPage(DEVICE, query);
  }

  @Get(CANCELLED.endpoint.path)
  @LatestRecordOperation(CANCELLED, CreditsCancelledBody)
  getCancelledCredits(@Query() query: CancelledCreditsQuery): Latest<CreditsCancelled> {
    return this.answers.latestRecord(CANCELLED, query);
  }

  @Get(listPath(CANCELLED))
  @RecordListOperation(CANCELLED, CreditsCancelledPage)
  listCancelledCredits(@Query() query: CancelledCreditsListQuery): Page<CreditsCancelled> {
    return this.answers.recordPage(CANCELLED, query);
  }

  @Get(TRANSFERRED.endpoint.path)
  @LatestRecordOperation(TRANSFERRED, CreditsTransferredBody)
  getTransferredCredits(@Query() query: TransferredCreditsQuery): Latest<CreditsTransferred> {
    return this.answers.latestRecord(TRANSFERRED, query);
  }

  @Get(listPath(TRANSFERRED))
  @RecordListOperation(TRANSFERRED, CreditsTransferredPage)
  listTransferredCredits(@Query() query: TransferredCreditsListQuery): Page<CreditsTransferred> {
    return this.answers.recordPage(TRANSFERRED, query);
  }

  @Get(RETIRED.endpoint.path)
  @LatestRecordOperation(RETIRED, CreditsRetiredBody)
  getRetiredCredits(@Query() query: RetiredCreditsQuery): Latest<CreditsRetired> {
    return this.answers.latestRecord(RETIRED, query);
  }

  @Get(listPath(RETIRED))
  @RecordListOperation(RETIRED, CreditsRetiredPage)
  listRetiredCredits(@Query() query: RetiredCreditsListQuery): Page<CreditsRetired> {
    return this.answers.recordPage(RETIRED, query);
  }

  @Get(PURCHASES.endpoint.path)
  @LatestRecordOperation(PURCHASES, FuelPurchaseClaimBody)
  getFuelPurchaseClaims(@Query() query: FuelPurchaseClaimsQuery): Latest<FuelPurchaseClaim> {
    return this.answers.latestRecord(PURCHASES, query);
  }

  @Get(listPath(PURCHASES))
  @RecordListOperation(PURCHASES, FuelPurchaseClaimPage)
  listFuelPurchaseClaims(@Query() query: FuelPurchaseClaimsListQuery): Page<FuelPurchaseClaim> {
    return this.answers.recordPage(PURCHASES, query);
  }

  @Get(DELIVERIES.endpoint.path)
  @LatestRecordOperation(DELIVERIES, FuelDeliveryClaimBody)
  getFuelDeliveryClaims(@Query() query: FuelDeliveryClaimsQuery): Latest<FuelDeliveryClaim> {
    return this.answers.latestRecord(DELIVERIES, query);
  }

  @Get(listPath(DELIVERIES))
  @RecordListOperation(DELIVERIES, FuelDeliveryClaimPage)
  listFuelDeliveryClaims(@Query() query: FuelDeliveryClaimsListQuery): Page<FuelDeliveryClaim> {
    return this.answers.recordPage(DELIVERIES, query);
  }

  @Get(listPath(REDUCTIONS))
  @RecordListOperation(REDUCTIONS, EmissionReductionClaimPage)
  listEmissionReductionClaims(@Query() query: EmissionReductionClaimsListQuery): Page<EmissionReductionRow> {
    return this.answers.recordPage(REDUCTIONS, query);
  }

  @Get(ONBOARDING.endpoint.path)
  @LatestRecordOperation(ONBOARDING, HouseholdOnboardingClaimBody)
  getHouseholdOnboardingClaims(
    @Query() query: HouseholdOnboardingClaimsQuery,
  ): Latest<HouseholdOnboardingClaim> {
    return this.answers.latestRecord(ONBOARDING, query);
  }

  @Get(listPath(ONBOARDING))
  @RecordListOperation(ONBOARDING, HouseholdOnboardingClaimPage)
  listHouseholdOnboardingClaims(
    @Query() query: HouseholdOnboardingClaimsListQuery,
  ): Page<HouseholdOnboardingClaim> {
    return this.answers.recordPage(ONBOARDING, query);
  }
}
