// Response bodies of the registry data API (spec: registry-data-api.md). Field names and JSON types are those of
// the original "Emerging Platform API" OpenAPI 1.0.0; every 200 body of the 12 original operations is one object.

export interface HouseholdDensity {
  low: number;
  medium: number;
  high: number;
}

export interface HouseholdStats {
  total_households: number;
  density: HouseholdDensity;
}

export interface StoveStacking {
  /** Fuels of the combination in the fixed order of `FUEL_TYPES`, joined by " + " (e.g. "LPG + Biomass"). */
  fuel_type: string;
  /** Share of the selected households using exactly this combination, 0–100. */
  percentage: number;
}

export interface DeviceStatus {
  device_id: string;
  status: string;
  /** ISO 8601 UTC date-time. */
  last_active: string;
}

/** Fields that do not apply to the selection (no household, no region) are omitted. */
export interface FuelUsage {
  household_id?: string;
  /** Kilograms. */
  fuel_consumed: number;
  region?: string;
}

export interface CreditsIssued {
  project_id: string;
  time_period: string;
  credits: number;
}

export interface CreditsCancelled {
  credit_id: string;
  /** YYYY-MM-DD */
  cancellation_date: string;
}

export interface CreditsTransferred {
  sender: string;
  recipient: string;
  amount: number;
  transfer_date: string;
}

export interface CreditsRetired {
  credit_id: string;
  retirement_date: string;
  /** tCO2e; one credit stands for one tonne. */
  emission_reductions: number;
}

export interface FuelPurchaseClaim {
  fuel_id: string;
  /** Kilograms. */
  amount: number;
  purchase_date: string;
}

export interface FuelDeliveryClaim {
  delivery_id: string;
  delivery_date: string;
  /** Kilograms. */
  delivered_quantity: number;
}

export interface EmissionReductionClaim {
  project_id: string;
  period: string;
  /** Whole tCO2e, rounded down (conservative). */
  reductions: number;
}

export interface HouseholdOnboardingClaim {
  household_id: string;
  onboarding_date: string;
}

export interface HelloBody {
  message: string;
}

/** Extension beyond the original contract: one page of a collection. */
export interface PageInfo {
  /** Opaque; pass as `cursor` to get the next page. Null on the last page. */
  next_cursor: string | null;
  has_more: boolean;
  limit: number;
}

export interface CollectionPage<T> {
  data: T[];
  page_info: PageInfo;
  /** Number of items matching the filters (all pages). */
  total_count: number;
}

export const REGISTRY_PAGE_LIMIT_DEFAULT = 50;
export const REGISTRY_PAGE_LIMIT_MAX = 500;

/**
 * The longest value each kind of query parameter accepts, checked before anything else is done with it (a longer
 * one is 400 `<name> must be at most <n> characters`): what a client can make the service hold in memory per
 * remembered answer is bounded by them.
 */
export const REGISTRY_PARAMETER_MAX_LENGTH = {
  /** project_id, household_id, device_id, credit_id and the other ids. */
  identifier: 100,
  /** region, a transfer's sender or recipient. */
  text: 200,
  /** fuel_type: the longest combination of the seven fuels is 68 characters. */
  fuelCombination: 100,
  /** An opaque page cursor as the service writes it. */
  cursor: 1000,
  /** YYYY-Q1 … YYYY-MM. */
  period: 7,
  /** YYYY-MM-DD. */
  date: 10,
  /** An RFC 3339 date-time with six fraction digits and an offset: 2024-01-01T00:00:00.000000+01:00. */
  dateTime: 32,
} as const;

/** The fixed order in which a fuel combination is written. */
export const FUEL_TYPES = [
  'LPG',
  'Electricity',
  'Ethanol',
  'Biogas',
  'Kerosene',
  'Charcoal',
  'Biomass',
] as const;
export type FuelType = (typeof FUEL_TYPES)[number];

export const HOUSEHOLD_DENSITIES = ['low', 'medium', 'high'] as const;
export type HouseholdDensityLevel = (typeof HOUSEHOLD_DENSITIES)[number];

export const DEVICE_STATUSES = ['active', 'inactive', 'faulty', 'decommissioned'] as const;
export type DeviceStatusValue = (typeof DEVICE_STATUSES)[number];
