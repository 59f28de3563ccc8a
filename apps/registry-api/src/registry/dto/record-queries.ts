import {
  CREDITS_CANCELLED,
  CREDITS_RETIRED,
  CREDITS_TRANSFERRED,
  DEVICE_STATUS,
  EMISSION_REDUCTION_CLAIMS,
  FUEL_DELIVERIES,
  FUEL_PURCHASES,
  HOUSEHOLD_ONBOARDING,
} from '../record-resources';
import { recordQueryClasses } from './registry-queries';

// The query classes of the record resources' routes, one named class per route so that a route's `@Query()` parameter
// is typed by it (the validation pipe and the OpenAPI document read its type); each is derived from the resource's
// declared selectors (record-resources.ts).

const device = recordQueryClasses(DEVICE_STATUS);
export class DeviceStatusQuery extends device.latest {}
export class DeviceStatusListQuery extends device.list {}

const cancelled = recordQueryClasses(CREDITS_CANCELLED);
export class CancelledCreditsQuery extends cancelled.latest {}
export class CancelledCreditsListQuery extends cancelled.list {}

const transferred = recordQueryClasses(CREDITS_TRANSFERRED);
export class TransferredCreditsQuery extends transferred.latest {}
export class TransferredCreditsListQuery extends transferred.list {}

const retired = recordQueryClasses(CREDITS_RETIRED);
export class RetiredCreditsQuery extends retired.latest {}
export class RetiredCreditsListQuery extends retired.list {}

const purchases = recordQueryClasses(FUEL_PURCHASES);
export class FuelPurchaseClaimsQuery extends purchases.latest {}
export class FuelPurchaseClaimsListQuery extends purchases.list {}

const deliveries = recordQueryClasses(FUEL_DELIVERIES);
export class FuelDeliveryClaimsQuery extends deliveries.latest {}
export class FuelDeliveryClaimsListQuery extends deliveries.list {}

export class EmissionReductionClaimsListQuery extends recordQueryClasses(EMISSION_REDUCTION_CLAIMS).list {}

const onboarding = recordQueryClasses(HOUSEHOLD_ONBOARDING);
export class HouseholdOnboardingClaimsQuery extends onboarding.latest {}
export class HouseholdOnboardingClaimsListQuery extends onboarding.list {}
