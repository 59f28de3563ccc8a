import type {
  CreditsCancelled,
  CreditsRetired,
  CreditsTransferred,
  DeviceStatus,
  FuelDeliveryClaim,
  FuelPurchaseClaim,
  HouseholdOnboardingClaim,
} from '@dmrv/contracts';

/** How one record resource is read: its table, its sort key (record date, then id) and its selectors. */
export interface RecordResource<T> {
  name: string;
  from: string;
  where?: string;
  /** The record's date column; `timestamptz` columns are keyed in microseconds since the epoch. */
  dateColumn: string;
  dateType: 'date' | 'timestamptz';
  idColumn: string;
  idType: 'text' | 'bigint';
  projectColumn: string;
  updatedColumn: string;
  /** Query parameter → column. Values are compared for equality. */
  selectors: Record<string, string>;
  select: string;
  map(row: Record<string, unknown>): T;
}

const ymd = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;

export const DEVICE_STATUS: RecordResource<DeviceStatus> = {
  name: 'device',
  from: 'devices d',
  dateColumn: 'd.last_active',
  dateType: 'timestamptz',
  idColumn: 'd.id',
  idType: 'text',
  projectColumn: 'd.project_id',
  updatedColumn: 'd.updated_at',
  selectors: { device_id: 'd.id', household_id: 'd.household_id' },
  select: 'd.id AS device_id, d.status, d.last_active',
  map: (row) => ({
    device_id: row.device_id as string,
    status: row.status as string,
    last_active: (row.last_active as Date).toISOString(),
  }),
};

export const CREDITS_CANCELLED: RecordResource<CreditsCancelled> = {
  name: 'cancellation',
  from: 'credit_events e',
  where: "e.kind = 'cancelled'",
  dateColumn: 'e.event_date',
  dateType: 'date',
  idColumn: 'e.id',
  idType: 'bigint',
  projectColumn: 'e.project_id',
  updatedColumn: 'e.updated_at',
  selectors: { credit_id: 'e.block_id' },
  select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS cancellation_date`,
  map: (row) => ({ credit_id: row.credit_id as string, cancellation_date: row.cancellation_date as string }),
};

export const CREDITS_TRANSFERRED: RecordResource<CreditsTransferred> = {
  name: 'transfer',
  from: 'credit_events e',
  where: "e.kind = 'transferred'",
  dateColumn: 'e.event_date',
  dateType: 'date',
  idColumn: 'e.id',
  idType: 'bigint',
  projectColumn: 'e.project_id',
  updatedColumn: 'e.updated_at',
  selectors: { credit_id: 'e.block_id', sender: 'e.sender', recipient: 'e.recipient' },
  select: `e.sender, e.recipient, e.quantity AS amount, ${ymd('e.event_date')} AS transfer_date`,
  map: (row) => ({
    sender: row.sender as string,
    recipient: row.recipient as string,
    amount: row.amount as number,
    transfer_date: row.transfer_date as string,
  }),
};

export const CREDITS_RETIRED: RecordResource<CreditsRetired> = {
  name: 'retirement',
  from: 'credit_events e',
  where: "e.kind = 'retired'",
  dateColumn: 'e.event_date',
  dateType: 'date',
  idColumn: 'e.id',
  idType: 'bigint',
  projectColumn: 'e.project_id',
  updatedColumn: 'e.updated_at',
  selectors: { credit_id: 'e.block_id' },
  // One credit is one tonne of CO2e, so a retirement's reductions are the credits it retires.
  select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS retirement_date, e.quantity AS emission_reductions`,
  map: (row) => ({
    credit_id: row.credit_id as string,
    retirement_date: row.retirement_date as string,
    emission_reductions: row.emission_reductions as number,
  }),
};

export const FUEL_PURCHASES: RecordResource<FuelPurchaseClaim> = {
  name: 'fuel purchase',
  from: 'fuel_purchases p',
  dateColumn: 'p.purchase_date',
  dateType: 'date',
  idColumn: 'p.id',
  idType: 'text',
  projectColumn: 'p.project_id',
  updatedColumn: 'p.updated_at',
  selectors: { fuel_id: 'p.id', household_id: 'p.household_id' },
  select: `p.id AS fuel_id, p.amount_kg::float8 AS amount, ${ymd('p.purchase_date')} AS purchase_date`,
  map: (row) => ({ fuel_id: row.fuel_id as string, amount: row.amount as number, purchase_date: row.purchase_date as string }),
};

export const FUEL_DELIVERIES: RecordResource<FuelDeliveryClaim> = {
  name: 'fuel delivery',
  from: 'fuel_deliveries f',
  dateColumn: 'f.delivery_date',
  dateType: 'date',
  idColumn: 'f.id',
  idType: 'text',
  projectColumn: 'f.project_id',
  updatedColumn: 'f.updated_at',
  selectors: { delivery_id: 'f.id', household_id: 'f.household_id' },
  select: `f.id AS delivery_id, ${ymd('f.delivery_date')} AS delivery_date, f.delivered_quantity_kg::float8 AS delivered_quantity`,
  map: (row) => ({
    delivery_id: row.delivery_id as string,
    delivery_date: row.delivery_date as string,
    delivered_quantity: row.delivered_quantity as number,
  }),
};

export const HOUSEHOLD_ONBOARDING: RecordResource<HouseholdOnboardingClaim> = {
  name: 'household onboarding',
  from: 'households h',
  dateColumn: 'h.onboarding_date',
  dateType: 'date',
  idColumn: 'h.id',
  idType: 'text',
  projectColumn: 'h.project_id',
  updatedColumn: 'h.updated_at',
  selectors: { household_id: 'h.id' },
  select: `h.id AS household_id, ${ymd('h.onboarding_date')} AS onboarding_date`,
  map: (row) => ({ household_id: row.household_id as string, onboarding_date: row.onboarding_date as string }),
};

export interface EmissionReductionRow {
  project_id: string;
  period: string;
  reductions: number;
}

export const EMISSION_REDUCTION_CLAIMS: RecordResource<EmissionReductionRow> = {
  name: 'emission reduction claim',
  from: 'emission_reduction_claims c',
  dateColumn: 'c.period_end',
  dateType: 'date',
  idColumn: 'c.id',
  idType: 'text',
  projectColumn: 'c.project_id',
  updatedColumn: 'c.updated_at',
  selectors: {},
  select: 'c.project_id, c.period, c.reductions',
  map: (row) => ({ project_id: row.project_id as string, period: row.period as string, reductions: row.reductions as number }),
};
