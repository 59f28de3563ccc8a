import type {
  CreditsCancelled,
  CreditsRetired,
  CreditsTransferred,
  DeviceStatus,
  FuelDeliveryClaim,
  FuelPurchaseClaim,
  HouseholdOnboardingClaim,
} from '@dmrv/contracts';

/**
 * How a selector parameter is validated and documented: `identifier` for ids (letters, digits, `. _ : -`), `text`
 * for free names (any character but a control character).
 */
export type SelectorKind = 'identifier' | 'text';

export interface Selector {
  /** The column compared for equality with the parameter's value. */
  column: string;
  kind: SelectorKind;
  /** The parameter's description in the OpenAPI document. */
  description: string;
}

/** How a record resource appears in the API: its original operation and its additive `/list` view. */
export interface RecordEndpoint {
  path: string;
  operationId: string;
  listOperationId: string;
  tag: string;
  summary: string;
  /** What this service answers, beyond the shared record semantics. */
  semantics: string;
}

/**
 * One record resource, declared once: the SQL that reads it, its selector parameters and its endpoints. Its query
 * classes (rules and OpenAPI parameters) and its operations' documentation are derived from it; its two routes are
 * methods of records.controller.ts, named by its operationIds (openapi-meaning.spec.ts ties the names to this
 * declaration, which EMPTY_AS=zero looks its zero values up by). The benchmark floor keeps a copy of its SQL
 * (bench/src/floors/registry-sql.ts: the floor is a separate process that does not depend on the service), and
 * registry-sql.spec.ts fails until the copy equals this declaration. What the loader writes into the tables is
 * described apart, in src/loader/entity-formats.ts: this is what the API answers from them.
 */
export interface RecordResource<T> {
  name: string;
  /** The SQL FROM clause (table and alias). */
  fromClause: string;
  where?: string;
  /** The record's date column; `timestamptz` columns are keyed in microseconds since the epoch. */
  dateColumn: string;
  dateType: 'date' | 'timestamptz';
  idColumn: string;
  idType: 'text' | 'bigint';
  projectColumn: string;
  updatedColumn: string;
  /** Query parameter → how it selects. Values are compared for equality. */
  selectors: Record<string, Selector>;
  select: string;
  map(row: Record<string, unknown>): T;
  endpoint: RecordEndpoint;
}

const ymd = (column: string): string => `to_char(${column}, 'YYYY-MM-DD')`;
const identifier = (column: string, description: string): Selector => ({
  column,
  kind: 'identifier',
  description,
});
const text = (column: string, description: string): Selector => ({ column, kind: 'text', description });

export const DEVICE_STATUS: RecordResource<DeviceStatus> = {
  name: 'device',
  fromClause: 'devices d',
  dateColumn: 'd.last_active',
  dateType: 'timestamptz',
  idColumn: 'd.id',
  idType: 'text',
  projectColumn: 'd.project_id',
  updatedColumn: 'd.updated_at',
  selectors: {
    device_id: identifier('d.id', 'The device'),
    household_id: identifier('d.household_id', "The household's device"),
  },
  select: 'd.id AS device_id, d.status, d.last_active',
  map: (row) => ({
    device_id: row.device_id as string,
    status: row.status as string,
    last_active: (row.last_active as Date).toISOString(),
  }),
  endpoint: {
    path: '/devices/status',
    operationId: 'getDeviceStatus',
    listOperationId: 'listDeviceStatus',
    tag: 'Device Monitoring',
    summary: 'Get device status',
    semantics: 'The record date is last_active. status is one of active, inactive, faulty, decommissioned.',
  },
};

interface CreditEventDeclaration<T> {
  kind: 'cancelled' | 'transferred' | 'retired';
  name: string;
  selectors: Record<string, Selector>;
  select: string;
  map(row: Record<string, unknown>): T;
  endpoint: Omit<RecordEndpoint, 'tag'>;
}

/** The three credit-event views read one ledger table, one event kind each. */
function creditEvents<T>(declaration: CreditEventDeclaration<T>): RecordResource<T> {
  return {
    name: declaration.name,
    fromClause: 'credit_events e',
    where: `e.kind = '${declaration.kind}'`,
    dateColumn: 'e.event_date',
    dateType: 'date',
    idColumn: 'e.id',
    idType: 'bigint',
    projectColumn: 'e.project_id',
    updatedColumn: 'e.updated_at',
    selectors: declaration.selectors,
    select: declaration.select,
    map: declaration.map,
    endpoint: { ...declaration.endpoint, tag: 'Carbon Credits' },
  };
}

export const CREDITS_CANCELLED: RecordResource<CreditsCancelled> = creditEvents({
  kind: 'cancelled',
  name: 'cancellation',
  selectors: { credit_id: identifier('e.block_id', 'The credit block') },
  select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS cancellation_date`,
  map: (row) => ({ credit_id: row.credit_id as string, cancellation_date: row.cancellation_date as string }),
  endpoint: {
    path: '/credits/cancelled',
    operationId: 'getCancelledCredits',
    listOperationId: 'listCancelledCredits',
    summary: 'Get cancelled credits',
    semantics: 'credit_id is the identifier of a credit block.',
  },
});

export const CREDITS_TRANSFERRED: RecordResource<CreditsTransferred> = creditEvents({
  kind: 'transferred',
  name: 'transfer',
  selectors: {
    credit_id: identifier('e.block_id', 'Transfers of this credit block'),
    sender: text('e.sender', 'Transfers from this account holder'),
    recipient: text('e.recipient', 'Transfers to this account holder'),
  },
  select: `e.sender, e.recipient, e.quantity AS amount, ${ymd('e.event_date')} AS transfer_date`,
  map: (row) => ({
    sender: row.sender as string,
    recipient: row.recipient as string,
    amount: row.amount as number,
    transfer_date: row.transfer_date as string,
  }),
  endpoint: {
    path: '/credits/transferred',
    operationId: 'getTransferredCredits',
    listOperationId: 'listTransferredCredits',
    summary: 'Get transferred credits',
    semantics: '',
  },
});

export const CREDITS_RETIRED: RecordResource<CreditsRetired> = creditEvents({
  kind: 'retired',
  name: 'retirement',
  selectors: { credit_id: identifier('e.block_id', 'The credit block') },
  // One credit is one tonne of CO2e, so a retirement's reductions are the credits it retires.
  select: `e.block_id AS credit_id, ${ymd('e.event_date')} AS retirement_date, e.quantity AS emission_reductions`,
  map: (row) => ({
    credit_id: row.credit_id as string,
    retirement_date: row.retirement_date as string,
    emission_reductions: row.emission_reductions as number,
  }),
  endpoint: {
    path: '/credits/retired',
    operationId: 'getRetiredCredits',
    listOperationId: 'listRetiredCredits',
    summary: 'Get retired credits',
    semantics: 'emission_reductions is in tCO2e (one credit is one tonne).',
  },
});

export const FUEL_PURCHASES: RecordResource<FuelPurchaseClaim> = {
  name: 'fuel purchase',
  fromClause: 'fuel_purchases p',
  dateColumn: 'p.purchase_date',
  dateType: 'date',
  idColumn: 'p.id',
  idType: 'text',
  projectColumn: 'p.project_id',
  updatedColumn: 'p.updated_at',
  selectors: {
    fuel_id: identifier('p.id', 'The fuel purchase'),
    household_id: identifier('p.household_id', "The household's purchases"),
  },
  select: `p.id AS fuel_id, p.amount_kg::float8 AS amount, ${ymd('p.purchase_date')} AS purchase_date`,
  map: (row) => ({
    fuel_id: row.fuel_id as string,
    amount: row.amount as number,
    purchase_date: row.purchase_date as string,
  }),
  endpoint: {
    path: '/claims/fuel-purchase',
    operationId: 'getFuelPurchaseClaims',
    listOperationId: 'listFuelPurchaseClaims',
    tag: 'Claims Management',
    summary: 'Get fuel purchase claims',
    semantics: 'amount is in kilograms.',
  },
};

export const FUEL_DELIVERIES: RecordResource<FuelDeliveryClaim> = {
  name: 'fuel delivery',
  fromClause: 'fuel_deliveries f',
  dateColumn: 'f.delivery_date',
  dateType: 'date',
  idColumn: 'f.id',
  idType: 'text',
  projectColumn: 'f.project_id',
  updatedColumn: 'f.updated_at',
  selectors: {
    delivery_id: identifier('f.id', 'The delivery'),
    household_id: identifier('f.household_id', "The household's deliveries"),
  },
  select: `f.id AS delivery_id, ${ymd('f.delivery_date')} AS delivery_date, f.delivered_quantity_kg::float8 AS delivered_quantity`,
  map: (row) => ({
    delivery_id: row.delivery_id as string,
    delivery_date: row.delivery_date as string,
    delivered_quantity: row.delivered_quantity as number,
  }),
  endpoint: {
    path: '/claims/fuel-delivery',
    operationId: 'getFuelDeliveryClaims',
    listOperationId: 'listFuelDeliveryClaims',
    tag: 'Claims Management',
    summary: 'Get fuel delivery claims',
    semantics: 'delivered_quantity is in kilograms.',
  },
};

export const HOUSEHOLD_ONBOARDING: RecordResource<HouseholdOnboardingClaim> = {
  name: 'household onboarding',
  fromClause: 'households h',
  dateColumn: 'h.onboarding_date',
  dateType: 'date',
  idColumn: 'h.id',
  idType: 'text',
  projectColumn: 'h.project_id',
  updatedColumn: 'h.updated_at',
  selectors: { household_id: identifier('h.id', 'The household') },
  select: `h.id AS household_id, ${ymd('h.onboarding_date')} AS onboarding_date`,
  map: (row) => ({
    household_id: row.household_id as string,
    onboarding_date: row.onboarding_date as string,
  }),
  endpoint: {
    path: '/claims/household-onboarding',
    operationId: 'getHouseholdOnboardingClaims',
    listOperationId: 'listHouseholdOnboardingClaims',
    tag: 'Claims Management',
    summary: 'Get household onboarding claims',
    semantics: 'The record date is onboarding_date.',
  },
};

export interface EmissionReductionRow {
  project_id: string;
  period: string;
  reductions: number;
}

export const EMISSION_REDUCTION_CLAIMS: RecordResource<EmissionReductionRow> = {
  name: 'emission reduction claim',
  fromClause: 'emission_reduction_claims c',
  dateColumn: 'c.period_end',
  dateType: 'date',
  idColumn: 'c.id',
  idType: 'text',
  projectColumn: 'c.project_id',
  updatedColumn: 'c.updated_at',
  selectors: {},
  select: 'c.project_id, c.period, c.reductions',
  map: (row) => ({
    project_id: row.project_id as string,
    period: row.period as string,
    reductions: row.reductions as number,
  }),
  endpoint: {
    path: '/claims/emission-reduction',
    operationId: 'getEmissionReductionClaims',
    listOperationId: 'listEmissionReductionClaims',
    tag: 'Claims Management',
    summary: 'Get emission reduction claims',
    semantics: '',
  },
};

/** The table a resource reads: its answers are cached until that table's change notification. */
export function recordTable(resource: RecordResource<unknown>): string {
  return resource.fromClause.split(' ')[0]!;
}

/** Every record resource, in the order of the original contract's endpoints table. */
export const RECORD_RESOURCES: ReadonlyArray<RecordResource<unknown>> = [
  DEVICE_STATUS,
  CREDITS_CANCELLED,
  CREDITS_TRANSFERRED,
  CREDITS_RETIRED,
  FUEL_PURCHASES,
  FUEL_DELIVERIES,
  EMISSION_REDUCTION_CLAIMS,
  HOUSEHOLD_ONBOARDING,
];

/** The path of a resource's additive collection view. */
export function listPath(resource: RecordResource<unknown>): string {
  return `${resource.endpoint.path}/list`;
}
