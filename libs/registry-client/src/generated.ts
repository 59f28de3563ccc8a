// Generated from the registry API's OpenAPI document by `node scripts/generate-registry-client.mjs`. Do not edit:
// registry-client-current.spec.ts fails when this file is not what the generator makes of the served document.
/* eslint-disable */
/** The document this client was generated from: Emerging Platform API 1.0.0. */
export const API_VERSION = "1.0.0";

export interface HouseholdStats {
  /** Total number of serviced households */
  total_households?: number;
  /** Contains low, medium, high */
  density?: {
    /** Number of low-density households */
    low?: number;
    /** Number of medium-density households */
    medium?: number;
    /** Number of high-density households */
    high?: number;
  };
}

export interface StoveStacking {
  /** Combination of fuel types used together */
  fuel_type?: string;
  /** Percentage of households using this combination */
  percentage?: number;
}

export interface DeviceStatus {
  /** Unique identifier of the device */
  device_id?: string;
  /** Current operational status of the device */
  status?: string;
  /** Timestamp of last recorded activity */
  last_active?: string;
}

export interface FuelUsage {
  /** Unique identifier of the household */
  household_id?: string;
  /** Total fuel consumed in the specified period */
  fuel_consumed?: number;
  /** Geographic region of the household */
  region?: string;
}

export interface CreditsIssued {
  /** Unique identifier of the project */
  project_id?: string;
  /** Period for which credits were issued */
  time_period?: string;
  /** Number of credits issued */
  credits?: number;
}

export interface CreditsCancelled {
  /** Identifier of the invalidated credit */
  credit_id?: string;
  /** Date of cancellation */
  cancellation_date?: string;
}

export interface CreditsTransferred {
  /** Entity transferring the credits */
  sender?: string;
  /** Entity receiving the credits */
  recipient?: string;
  /** Number of credits transferred */
  amount?: number;
  /** Date of transfer */
  transfer_date?: string;
}

export interface CreditsRetired {
  /** Identifier of the retired credit */
  credit_id?: string;
  /** Date of retirement */
  retirement_date?: string;
  /** Emission reductions associated with the retired credit */
  emission_reductions?: number;
}

export interface FuelPurchaseClaim {
  /** Identifier of the fuel purchase */
  fuel_id?: string;
  /** Amount of fuel purchased */
  amount?: number;
  /** Date of purchase */
  purchase_date?: string;
}

export interface FuelDeliveryClaim {
  /** Identifier of the delivery */
  delivery_id?: string;
  /** Date of delivery */
  delivery_date?: string;
  /** Quantity of fuel delivered */
  delivered_quantity?: number;
}

export interface EmissionReductionClaim {
  /** Identifier of the project */
  project_id?: string;
  /** Period for which emissions were reduced */
  period?: string;
  /** Amount of emissions reduced */
  reductions?: number;
}

export interface HouseholdOnboardingClaim {
  /** Unique identifier of the household */
  household_id: string;
  /** Date of onboarding */
  onboarding_date: string;
}

export interface Error {
  /** Text describing what went wrong */
  message?: string;
}

export interface PageInfo {
  /** Pass as cursor for the next page; null on the last page */
  next_cursor: string | null;
  has_more: boolean;
  limit: number;
}

export interface StoveStackingPage {
  data: Array<StoveStacking>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface DeviceStatusPage {
  data: Array<DeviceStatus>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface CreditsCancelledPage {
  data: Array<CreditsCancelled>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface CreditsTransferredPage {
  data: Array<CreditsTransferred>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface CreditsRetiredPage {
  data: Array<CreditsRetired>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface FuelPurchaseClaimPage {
  data: Array<FuelPurchaseClaim>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface FuelDeliveryClaimPage {
  data: Array<FuelDeliveryClaim>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface EmissionReductionClaimPage {
  data: Array<EmissionReductionClaim>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface HouseholdOnboardingClaimPage {
  data: Array<HouseholdOnboardingClaim>;
  page_info: PageInfo;
  /** Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total) */
  total_count: number;
}

export interface GetHouseholdStatsQuery {
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only households of this region (404 when none) */
  region?: string;
}

export interface GetStoveStackingDataQuery {
  /** A combination such as "LPG + Biomass" (any order and case; + or , between fuels) */
  fuel_type?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only households of this region (404 when none) */
  region?: string;
}

export interface ListStoveStackingDataQuery {
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only households of this region (404 when none) */
  region?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
}

export interface GetDeviceStatusQuery {
  /** The device */
  device_id?: string;
  /** The household's device */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListDeviceStatusQuery {
  /** The device */
  device_id?: string;
  /** The household's device */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetFuelUsageQuery {
  /** One household (404 when unknown) */
  household_id?: string;
  /** One region (404 when no household is in it) */
  region?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** First day included */
  from?: string;
  /** Last day included */
  to?: string;
}

export interface GetIssuedCreditsQuery {
  /** Unique identifier of the project */
  project_id: string;
  /** Period for which credits were issued */
  time_period: string;
}

export interface GetCancelledCreditsQuery {
  /** The credit block */
  credit_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListCancelledCreditsQuery {
  /** The credit block */
  credit_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetTransferredCreditsQuery {
  /** Transfers of this credit block */
  credit_id?: string;
  /** Transfers from this account holder */
  sender?: string;
  /** Transfers to this account holder */
  recipient?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListTransferredCreditsQuery {
  /** Transfers of this credit block */
  credit_id?: string;
  /** Transfers from this account holder */
  sender?: string;
  /** Transfers to this account holder */
  recipient?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetRetiredCreditsQuery {
  /** The credit block */
  credit_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListRetiredCreditsQuery {
  /** The credit block */
  credit_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetFuelPurchaseClaimsQuery {
  /** The fuel purchase */
  fuel_id?: string;
  /** The household's purchases */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListFuelPurchaseClaimsQuery {
  /** The fuel purchase */
  fuel_id?: string;
  /** The household's purchases */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetFuelDeliveryClaimsQuery {
  /** The delivery */
  delivery_id?: string;
  /** The household's deliveries */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListFuelDeliveryClaimsQuery {
  /** The delivery */
  delivery_id?: string;
  /** The household's deliveries */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetEmissionReductionClaimsQuery {
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  period?: string;
  /** Synonym of period (published examples send it) */
  time_period?: string;
}

export interface ListEmissionReductionClaimsQuery {
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetHouseholdOnboardingClaimsQuery {
  /** The household */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
}

export interface ListHouseholdOnboardingClaimsQuery {
  /** The household */
  household_id?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** Only records dated within this period: YYYY-Q1…YYYY-Q4 (upstream format), or YYYY, or YYYY-MM */
  time_period?: string;
  /** Page size, default 50, at most 500 (above is a 400) */
  limit?: number;
  /** page_info.next_cursor of the previous page */
  cursor?: string;
  /** Records dated on or after this day */
  from?: string;
  /** Records dated on or before this day */
  to?: string;
  /** Records created or changed at or after this instant */
  updated_since?: string;
}

export interface GetFuelUsageAtFuelPathQuery {
  /** One household (404 when unknown) */
  household_id?: string;
  /** One region (404 when no household is in it) */
  region?: string;
  /** Only records of this project (404 when no such project exists) */
  project_id?: string;
  /** First day included */
  from?: string;
  /** Last day included */
  to?: string;
}

export interface GetHelloQuery {
}

export interface GetSigningKeysQuery {
}

/** Every GET operation: its path, its query and its 200 body. */
export interface Operations {
  getHouseholdStats: { path: "/households/stats"; query: GetHouseholdStatsQuery; response: HouseholdStats };
  getStoveStackingData: { path: "/households/stove-stacking"; query: GetStoveStackingDataQuery; response: StoveStacking };
  listStoveStackingData: { path: "/households/stove-stacking/list"; query: ListStoveStackingDataQuery; response: StoveStackingPage };
  getDeviceStatus: { path: "/devices/status"; query: GetDeviceStatusQuery; response: DeviceStatus };
  listDeviceStatus: { path: "/devices/status/list"; query: ListDeviceStatusQuery; response: DeviceStatusPage };
  getFuelUsage: { path: "/fuel-usage"; query: GetFuelUsageQuery; response: FuelUsage };
  getIssuedCredits: { path: "/credits/issued"; query: GetIssuedCreditsQuery; response: CreditsIssued };
  getCancelledCredits: { path: "/credits/cancelled"; query: GetCancelledCreditsQuery; response: CreditsCancelled };
  listCancelledCredits: { path: "/credits/cancelled/list"; query: ListCancelledCreditsQuery; response: CreditsCancelledPage };
  getTransferredCredits: { path: "/credits/transferred"; query: GetTransferredCreditsQuery; response: CreditsTransferred };
  listTransferredCredits: { path: "/credits/transferred/list"; query: ListTransferredCreditsQuery; response: CreditsTransferredPage };
  getRetiredCredits: { path: "/credits/retired"; query: GetRetiredCreditsQuery; response: CreditsRetired };
  listRetiredCredits: { path: "/credits/retired/list"; query: ListRetiredCreditsQuery; response: CreditsRetiredPage };
  getFuelPurchaseClaims: { path: "/claims/fuel-purchase"; query: GetFuelPurchaseClaimsQuery; response: FuelPurchaseClaim };
  listFuelPurchaseClaims: { path: "/claims/fuel-purchase/list"; query: ListFuelPurchaseClaimsQuery; response: FuelPurchaseClaimPage };
  getFuelDeliveryClaims: { path: "/claims/fuel-delivery"; query: GetFuelDeliveryClaimsQuery; response: FuelDeliveryClaim };
  listFuelDeliveryClaims: { path: "/claims/fuel-delivery/list"; query: ListFuelDeliveryClaimsQuery; response: FuelDeliveryClaimPage };
  getEmissionReductionClaims: { path: "/claims/emission-reduction"; query: GetEmissionReductionClaimsQuery; response: EmissionReductionClaim };
  listEmissionReductionClaims: { path: "/claims/emission-reduction/list"; query: ListEmissionReductionClaimsQuery; response: EmissionReductionClaimPage };
  getHouseholdOnboardingClaims: { path: "/claims/household-onboarding"; query: GetHouseholdOnboardingClaimsQuery; response: HouseholdOnboardingClaim };
  listHouseholdOnboardingClaims: { path: "/claims/household-onboarding/list"; query: ListHouseholdOnboardingClaimsQuery; response: HouseholdOnboardingClaimPage };
  getFuelUsageAtFuelPath: { path: "/fuel/usage"; query: GetFuelUsageAtFuelPathQuery; response: FuelUsage };
  getHello: { path: "/hello"; query: GetHelloQuery; response: {
  message?: string;
} };
  getSigningKeys: { path: "/jwks.json"; query: GetSigningKeysQuery; response: {
  keys: Array<{
    kty: string;
    crv: string;
    /** The public key, base64url */
    x: string;
    /** RFC 7638 thumbprint: the keyid of its signatures */
    kid: string;
    use?: string;
    /** When the key stopped signing (seconds since the epoch); absent on the current key */
    exp?: number;
  }>;
} };
}

export const OPERATION_PATHS: { [K in keyof Operations]: Operations[K]['path'] } = {
  getHouseholdStats: "/households/stats",
  getStoveStackingData: "/households/stove-stacking",
  listStoveStackingData: "/households/stove-stacking/list",
  getDeviceStatus: "/devices/status",
  listDeviceStatus: "/devices/status/list",
  getFuelUsage: "/fuel-usage",
  getIssuedCredits: "/credits/issued",
  getCancelledCredits: "/credits/cancelled",
  listCancelledCredits: "/credits/cancelled/list",
  getTransferredCredits: "/credits/transferred",
  listTransferredCredits: "/credits/transferred/list",
  getRetiredCredits: "/credits/retired",
  listRetiredCredits: "/credits/retired/list",
  getFuelPurchaseClaims: "/claims/fuel-purchase",
  listFuelPurchaseClaims: "/claims/fuel-purchase/list",
  getFuelDeliveryClaims: "/claims/fuel-delivery",
  listFuelDeliveryClaims: "/claims/fuel-delivery/list",
  getEmissionReductionClaims: "/claims/emission-reduction",
  listEmissionReductionClaims: "/claims/emission-reduction/list",
  getHouseholdOnboardingClaims: "/claims/household-onboarding",
  listHouseholdOnboardingClaims: "/claims/household-onboarding/list",
  getFuelUsageAtFuelPath: "/fuel/usage",
  getHello: "/hello",
  getSigningKeys: "/jwks.json",
};

/** The collection operations, which `RegistryClient.paginate` walks page by page. */
export type ListOperationId = "listStoveStackingData" | "listDeviceStatus" | "listCancelledCredits" | "listTransferredCredits" | "listRetiredCredits" | "listFuelPurchaseClaims" | "listFuelDeliveryClaims" | "listEmissionReductionClaims" | "listHouseholdOnboardingClaims";

/** One method per operation; `RegistryClient` supplies the transport. */
export abstract class RegistryOperations {
  protected abstract request<K extends keyof Operations>(operationId: K, query: Operations[K]['query'] | undefined): Promise<Operations[K]['response']>;

  /** Get household statistics: GET /households/stats */
  getHouseholdStats(query?: GetHouseholdStatsQuery): Promise<HouseholdStats> {
    return this.request("getHouseholdStats", query);
  }

  /** Get stove stacking data: GET /households/stove-stacking */
  getStoveStackingData(query?: GetStoveStackingDataQuery): Promise<StoveStacking> {
    return this.request("getStoveStackingData", query);
  }

  /** List stove stacking data: GET /households/stove-stacking/list */
  listStoveStackingData(query?: ListStoveStackingDataQuery): Promise<StoveStackingPage> {
    return this.request("listStoveStackingData", query);
  }

  /** Get device status: GET /devices/status */
  getDeviceStatus(query?: GetDeviceStatusQuery): Promise<DeviceStatus> {
    return this.request("getDeviceStatus", query);
  }

  /** List device status: GET /devices/status/list */
  listDeviceStatus(query?: ListDeviceStatusQuery): Promise<DeviceStatusPage> {
    return this.request("listDeviceStatus", query);
  }

  /** Get fuel usage: GET /fuel-usage */
  getFuelUsage(query?: GetFuelUsageQuery): Promise<FuelUsage> {
    return this.request("getFuelUsage", query);
  }

  /** Get issued credits: GET /credits/issued */
  getIssuedCredits(query: GetIssuedCreditsQuery): Promise<CreditsIssued> {
    return this.request("getIssuedCredits", query);
  }

  /** Get cancelled credits: GET /credits/cancelled */
  getCancelledCredits(query?: GetCancelledCreditsQuery): Promise<CreditsCancelled> {
    return this.request("getCancelledCredits", query);
  }

  /** List cancelled credits: GET /credits/cancelled/list */
  listCancelledCredits(query?: ListCancelledCreditsQuery): Promise<CreditsCancelledPage> {
    return this.request("listCancelledCredits", query);
  }

  /** Get transferred credits: GET /credits/transferred */
  getTransferredCredits(query?: GetTransferredCreditsQuery): Promise<CreditsTransferred> {
    return this.request("getTransferredCredits", query);
  }

  /** List transferred credits: GET /credits/transferred/list */
  listTransferredCredits(query?: ListTransferredCreditsQuery): Promise<CreditsTransferredPage> {
    return this.request("listTransferredCredits", query);
  }

  /** Get retired credits: GET /credits/retired */
  getRetiredCredits(query?: GetRetiredCreditsQuery): Promise<CreditsRetired> {
    return this.request("getRetiredCredits", query);
  }

  /** List retired credits: GET /credits/retired/list */
  listRetiredCredits(query?: ListRetiredCreditsQuery): Promise<CreditsRetiredPage> {
    return this.request("listRetiredCredits", query);
  }

  /** Get fuel purchase claims: GET /claims/fuel-purchase */
  getFuelPurchaseClaims(query?: GetFuelPurchaseClaimsQuery): Promise<FuelPurchaseClaim> {
    return this.request("getFuelPurchaseClaims", query);
  }

  /** List fuel purchase claims: GET /claims/fuel-purchase/list */
  listFuelPurchaseClaims(query?: ListFuelPurchaseClaimsQuery): Promise<FuelPurchaseClaimPage> {
    return this.request("listFuelPurchaseClaims", query);
  }

  /** Get fuel delivery claims: GET /claims/fuel-delivery */
  getFuelDeliveryClaims(query?: GetFuelDeliveryClaimsQuery): Promise<FuelDeliveryClaim> {
    return this.request("getFuelDeliveryClaims", query);
  }

  /** List fuel delivery claims: GET /claims/fuel-delivery/list */
  listFuelDeliveryClaims(query?: ListFuelDeliveryClaimsQuery): Promise<FuelDeliveryClaimPage> {
    return this.request("listFuelDeliveryClaims", query);
  }

  /** Get emission reduction claims: GET /claims/emission-reduction */
  getEmissionReductionClaims(query?: GetEmissionReductionClaimsQuery): Promise<EmissionReductionClaim> {
    return this.request("getEmissionReductionClaims", query);
  }

  /** List emission reduction claims: GET /claims/emission-reduction/list */
  listEmissionReductionClaims(query?: ListEmissionReductionClaimsQuery): Promise<EmissionReductionClaimPage> {
    return this.request("listEmissionReductionClaims", query);
  }

  /** Get household onboarding claims: GET /claims/household-onboarding */
  getHouseholdOnboardingClaims(query?: GetHouseholdOnboardingClaimsQuery): Promise<HouseholdOnboardingClaim> {
    return this.request("getHouseholdOnboardingClaims", query);
  }

  /** List household onboarding claims: GET /claims/household-onboarding/list */
  listHouseholdOnboardingClaims(query?: ListHouseholdOnboardingClaimsQuery): Promise<HouseholdOnboardingClaimPage> {
    return this.request("listHouseholdOnboardingClaims", query);
  }

  /** Get fuel usage: GET /fuel/usage */
  getFuelUsageAtFuelPath(query?: GetFuelUsageAtFuelPathQuery): Promise<FuelUsage> {
    return this.request("getFuelUsageAtFuelPath", query);
  }

  /** Liveness: GET /hello */
  getHello(query?: GetHelloQuery): Promise<{
  message?: string;
}> {
    return this.request("getHello", query);
  }

  /** Keys that sign the answers: GET /jwks.json */
  getSigningKeys(query?: GetSigningKeysQuery): Promise<{
  keys: Array<{
    kty: string;
    crv: string;
    /** The public key, base64url */
    x: string;
    /** RFC 7638 thumbprint: the keyid of its signatures */
    kid: string;
    use?: string;
    /** When the key stopped signing (seconds since the epoch); absent on the current key */
    exp?: number;
  }>;
}> {
    return this.request("getSigningKeys", query);
  }
}
