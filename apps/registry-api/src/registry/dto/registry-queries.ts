import { REGISTRY_PAGE_LIMIT_DEFAULT, REGISTRY_PAGE_LIMIT_MAX } from '@dmrv/contracts';
import { IsDefined, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';
import { IsCalendarDate, IsFuelCombination, IsPeriod, IsPlainText, IsUtcDateTime, ToInteger } from './query-validators';

// Query parameters of every endpoint. The global pipe rejects any parameter not declared here (400 naming it):
// integrators complain most about filters that are silently ignored.

const ID = /^[A-Za-z0-9][A-Za-z0-9._:-]*$/;
const idMessage = (name: string) => ({ message: `${name} must be an identifier (letters, digits, . _ : -)` });

export class ProjectScopedQuery {
  @IsOptional()
  @IsString()
  @Matches(ID, idMessage('project_id'))
  @MaxLength(100)
  project_id?: string;
}

export class HouseholdStatsQuery extends ProjectScopedQuery {
  @IsOptional()
  // Checked last (decorators register bottom-up): a non-string is reported as such, not as a control character.
  @IsPlainText()
  @IsString()
  @IsNotEmpty()
  @MaxLength(100)
  region?: string;
}

export class StoveStackingQuery extends HouseholdStatsQuery {
  @IsOptional()
  @IsString()
  @IsFuelCombination()
  fuel_type?: string;
}

export class FuelUsageQuery extends HouseholdStatsQuery {
  @IsOptional()
  @IsString()
  @Matches(ID, idMessage('household_id'))
  household_id?: string;

  @IsOptional()
  @IsCalendarDate()
  from?: string;

  @IsOptional()
  @IsCalendarDate()
  to?: string;
}

export class IssuedCreditsQuery {
  @IsDefined({ message: 'project_id is required' })
  @IsString()
  @Matches(ID, idMessage('project_id'))
  @MaxLength(100)
  project_id!: string;

  @IsDefined({ message: 'time_period is required' })
  @IsString()
  @IsPeriod()
  time_period!: string;
}

export class EmissionReductionQuery extends ProjectScopedQuery {
  @IsOptional()
  @IsString()
  @IsPeriod()
  period?: string;

  /** Published examples send `time_period` to the claims endpoints; accepted as a synonym of `period`. */
  @IsOptional()
  @IsString()
  @IsPeriod()
  time_period?: string;
}

/** Filters every record resource accepts on its original path, besides its own selectors. */
export class RecordQuery extends ProjectScopedQuery {
  @IsOptional()
  @IsString()
  @IsPeriod()
  time_period?: string;
}

export class DeviceStatusQuery extends RecordQuery {
  @IsOptional() @IsString() @Matches(ID, idMessage('device_id')) device_id?: string;
  @IsOptional() @IsString() @Matches(ID, idMessage('household_id')) household_id?: string;
}

export class CreditIdQuery extends RecordQuery {
  @IsOptional() @IsString() @Matches(ID, idMessage('credit_id')) credit_id?: string;
}

export class TransferQuery extends CreditIdQuery {
  @IsOptional() @IsPlainText() @IsString() @IsNotEmpty() @MaxLength(200) sender?: string;
  @IsOptional() @IsPlainText() @IsString() @IsNotEmpty() @MaxLength(200) recipient?: string;
}

export class FuelPurchaseQuery extends RecordQuery {
  @IsOptional() @IsString() @Matches(ID, idMessage('fuel_id')) fuel_id?: string;
  @IsOptional() @IsString() @Matches(ID, idMessage('household_id')) household_id?: string;
}

export class FuelDeliveryQuery extends RecordQuery {
  @IsOptional() @IsString() @Matches(ID, idMessage('delivery_id')) delivery_id?: string;
  @IsOptional() @IsString() @Matches(ID, idMessage('household_id')) household_id?: string;
}

export class OnboardingQuery extends RecordQuery {
  @IsOptional() @IsString() @Matches(ID, idMessage('household_id')) household_id?: string;
}

export interface CollectionParams {
  limit?: number;
  cursor?: string;
  from?: string;
  to?: string;
  updated_since?: string;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the TypeScript mixin pattern requires any[]
type Constructor<T = object> = new (...args: any[]) => T;

/** Adds the paging convention shared by every collection: `limit`, `cursor`, `from`/`to`, `updated_since`. */
export function Collection<TBase extends Constructor>(Base: TBase) {
  class CollectionQuery extends Base implements CollectionParams {
    @IsOptional()
    // Decorators register bottom-up and, with stopAtFirstError, the first registered failure is the one reported.
    @Max(REGISTRY_PAGE_LIMIT_MAX, { message: `limit must not be greater than ${REGISTRY_PAGE_LIMIT_MAX}` })
    @Min(1, { message: 'limit must be at least 1' })
    @IsInt({ message: 'limit must be an integer' })
    @ToInteger()
    limit?: number;

    @IsOptional()
    @IsString()
    @MaxLength(1000)
    cursor?: string;

    @IsOptional()
    @IsCalendarDate()
    from?: string;

    @IsOptional()
    @IsCalendarDate()
    to?: string;

    @IsOptional()
    @IsUtcDateTime()
    updated_since?: string;
  }
  return CollectionQuery;
}

export class DeviceStatusListQuery extends Collection(DeviceStatusQuery) {}
export class CancelledListQuery extends Collection(CreditIdQuery) {}
export class TransferListQuery extends Collection(TransferQuery) {}
export class RetiredListQuery extends Collection(CreditIdQuery) {}
export class FuelPurchaseListQuery extends Collection(FuelPurchaseQuery) {}
export class FuelDeliveryListQuery extends Collection(FuelDeliveryQuery) {}
export class OnboardingListQuery extends Collection(OnboardingQuery) {}
export class EmissionReductionListQuery extends Collection(RecordQuery) {}

export class StoveStackingListQuery extends HouseholdStatsQuery {
  @IsOptional()
  // Decorators register bottom-up and, with stopAtFirstError, the first registered failure is the one reported.
  @Max(REGISTRY_PAGE_LIMIT_MAX, { message: `limit must not be greater than ${REGISTRY_PAGE_LIMIT_MAX}` })
  @Min(1, { message: 'limit must be at least 1' })
  @IsInt({ message: 'limit must be an integer' })
  @ToInteger()
  limit?: number;

  @IsOptional()
  @IsString()
  @MaxLength(1000)
  cursor?: string;
}

export const DEFAULT_LIMIT = REGISTRY_PAGE_LIMIT_DEFAULT;
