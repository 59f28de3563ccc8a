import type { Type } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiSchema } from '@nestjs/swagger';

// The 200 bodies of the operations, as the OpenAPI document describes them (each class is the component schema its
// `@ApiSchema` names). The original contract's schemas keep their fields, types, formats and (absent) `required`
// lists; the collection pages are additive (`x-extension`). The shapes the code computes with are the interfaces of
// @dmrv/contracts; registry-openapi.e2e-spec.ts holds these to the original contract field for field.

const integer = (description: string) => ApiPropertyOptional({ type: 'integer', description });
const number = (description: string, format?: 'float') =>
  ApiPropertyOptional({ type: 'number', description, ...(format ? { format } : {}) });
const string = (description: string, format?: 'date' | 'date-time') =>
  ApiPropertyOptional({ type: 'string', description, ...(format ? { format } : {}) });

@ApiSchema({ name: 'HouseholdStats' })
export class HouseholdStatsBody {
  @integer('Total number of serviced households')
  total_households?: number;

  @ApiPropertyOptional({
    type: 'object',
    description: 'Contains low, medium, high',
    properties: {
      low: { type: 'integer', description: 'Number of low-density households' },
      medium: { type: 'integer', description: 'Number of medium-density households' },
      high: { type: 'integer', description: 'Number of high-density households' },
    },
  })
  density?: { low: number; medium: number; high: number };
}

@ApiSchema({ name: 'StoveStacking' })
export class StoveStackingBody {
  @string('Combination of fuel types used together')
  fuel_type?: string;

  @number('Percentage of households using this combination', 'float')
  percentage?: number;
}

@ApiSchema({ name: 'DeviceStatus' })
export class DeviceStatusBody {
  @string('Unique identifier of the device')
  device_id?: string;

  @string('Current operational status of the device')
  status?: string;

  @string('Timestamp of last recorded activity', 'date-time')
  last_active?: string;
}

@ApiSchema({ name: 'FuelUsage' })
export class FuelUsageBody {
  @string('Unique identifier of the household')
  household_id?: string;

  @number('Total fuel consumed in the specified period')
  fuel_consumed?: number;

  @string('Geographic region of the household')
  region?: string;
}

@ApiSchema({ name: 'CreditsIssued' })
export class CreditsIssuedBody {
  @string('Unique identifier of the project')
  project_id?: string;

  @string('Period for which credits were issued')
  time_period?: string;

  @integer('Number of credits issued')
  credits?: number;
}

@ApiSchema({ name: 'CreditsCancelled' })
export class CreditsCancelledBody {
  @string('Identifier of the invalidated credit')
  credit_id?: string;

  @string('Date of cancellation', 'date')
  cancellation_date?: string;
}

@ApiSchema({ name: 'CreditsTransferred' })
export class CreditsTransferredBody {
  @string('Entity transferring the credits')
  sender?: string;

  @string('Entity receiving the credits')
  recipient?: string;

  @integer('Number of credits transferred')
  amount?: number;

  @string('Date of transfer', 'date')
  transfer_date?: string;
}

@ApiSchema({ name: 'CreditsRetired' })
export class CreditsRetiredBody {
  @string('Identifier of the retired credit')
  credit_id?: string;

  @string('Date of retirement', 'date')
  retirement_date?: string;

  @integer('Emission reductions associated with the retired credit')
  emission_reductions?: number;
}

@ApiSchema({ name: 'FuelPurchaseClaim' })
export class FuelPurchaseClaimBody {
  @string('Identifier of the fuel purchase')
  fuel_id?: string;

  @number('Amount of fuel purchased', 'float')
  amount?: number;

  @string('Date of purchase', 'date')
  purchase_date?: string;
}

@ApiSchema({ name: 'FuelDeliveryClaim' })
export class FuelDeliveryClaimBody {
  @string('Identifier of the delivery')
  delivery_id?: string;

  @string('Date of delivery', 'date')
  delivery_date?: string;

  @number('Quantity of fuel delivered', 'float')
  delivered_quantity?: number;
}

@ApiSchema({ name: 'EmissionReductionClaim' })
export class EmissionReductionClaimBody {
  @string('Identifier of the project')
  project_id?: string;

  @string('Period for which emissions were reduced')
  period?: string;

  @integer('Amount of emissions reduced')
  reductions?: number;
}

@ApiSchema({ name: 'HouseholdOnboardingClaim' })
export class HouseholdOnboardingClaimBody {
  @ApiProperty({ type: 'string', description: 'Unique identifier of the household' })
  household_id!: string;

  @ApiProperty({ type: 'string', format: 'date', description: 'Date of onboarding' })
  onboarding_date!: string;
}

@ApiSchema({ name: 'Error' })
export class ErrorBody {
  @string('Text describing what went wrong')
  message?: string;
}

@ApiSchema({ name: 'PageInfo' })
export class PageInfoBody {
  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Pass as cursor for the next page; null on the last page',
  })
  next_cursor!: string | null;

  @ApiProperty({ type: 'boolean' })
  has_more!: boolean;

  @ApiProperty({ type: 'integer' })
  limit!: number;
}

/** The page of a collection view of `item`, named `<item's schema>Page` in the document. */
function pageOf(item: Type<unknown>, schema: string): Type<unknown> {
  class Page {}
  ApiProperty({ type: [item] })(Page.prototype, 'data');
  ApiProperty({ type: PageInfoBody })(Page.prototype, 'page_info');
  ApiProperty({
    type: 'integer',
    description:
      'Items matching the filters, over all pages, counted when the first page was read (later pages repeat that total)',
  })(Page.prototype, 'total_count');
  ApiSchema({ name: `${schema}Page` })(Page);
  return Page;
}

export const StoveStackingPage = pageOf(StoveStackingBody, 'StoveStacking');
export const DeviceStatusPage = pageOf(DeviceStatusBody, 'DeviceStatus');
export const CreditsCancelledPage = pageOf(CreditsCancelledBody, 'CreditsCancelled');
export const CreditsTransferredPage = pageOf(CreditsTransferredBody, 'CreditsTransferred');
export const CreditsRetiredPage = pageOf(CreditsRetiredBody, 'CreditsRetired');
export const FuelPurchaseClaimPage = pageOf(FuelPurchaseClaimBody, 'FuelPurchaseClaim');
export const FuelDeliveryClaimPage = pageOf(FuelDeliveryClaimBody, 'FuelDeliveryClaim');
export const EmissionReductionClaimPage = pageOf(EmissionReductionClaimBody, 'EmissionReductionClaim');
export const HouseholdOnboardingClaimPage = pageOf(HouseholdOnboardingClaimBody, 'HouseholdOnboardingClaim');
