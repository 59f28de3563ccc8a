import { Column, Entity, PrimaryColumn, PrimaryGeneratedColumn } from 'typeorm';
import { numericTransformer } from './numeric.transformer';

// Mappings of the tables created by the migrations (the migrations are the schema's source of truth; these classes
// are never synchronized). `date` columns stay strings (YYYY-MM-DD) so no time zone can shift them.

@Entity({ name: 'projects' })
export class ProjectEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text') name!: string;
  @Column('text') country!: string;
  @Column('numeric', { name: 'ncv_tj_per_t', transformer: numericTransformer }) ncvTjPerT!: number;
  @Column('numeric', { transformer: numericTransformer }) fnrb!: number;
  @Column('numeric', { name: 'ef_co2_t_per_tj', transformer: numericTransformer }) efCo2TPerTj!: number;
  @Column('numeric', { name: 'ef_non_co2_t_per_tj', transformer: numericTransformer }) efNonCo2TPerTj!: number;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'households' })
export class HouseholdEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text') region!: string;
  @Column('text') density!: string;
  @Column('date', { name: 'onboarding_date' }) onboardingDate!: string;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'household_fuels' })
export class HouseholdFuelEntity {
  @PrimaryColumn('text', { name: 'household_id' }) householdId!: string;
  @PrimaryColumn('text', { name: 'fuel_type' }) fuelType!: string;
}

@Entity({ name: 'devices' })
export class DeviceEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'household_id' }) householdId!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text') status!: string;
  @Column('timestamptz', { name: 'last_active' }) lastActive!: Date;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'fuel_consumption' })
export class FuelConsumptionEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' }) id!: string;
  @Column('text', { name: 'household_id' }) householdId!: string;
  @Column('text', { name: 'device_id', nullable: true }) deviceId!: string | null;
  @Column('text', { name: 'fuel_type' }) fuelType!: string;
  @Column('date', { name: 'consumed_on' }) consumedOn!: string;
  @Column('numeric', { name: 'quantity_kg', transformer: numericTransformer }) quantityKg!: number;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'fuel_purchases' })
export class FuelPurchaseEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'household_id' }) householdId!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text', { name: 'fuel_type' }) fuelType!: string;
  @Column('numeric', { name: 'amount_kg', transformer: numericTransformer }) amountKg!: number;
  @Column('date', { name: 'purchase_date' }) purchaseDate!: string;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'fuel_deliveries' })
export class FuelDeliveryEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'household_id' }) householdId!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text', { name: 'fuel_type' }) fuelType!: string;
  @Column('numeric', { name: 'delivered_quantity_kg', transformer: numericTransformer }) deliveredQuantityKg!: number;
  @Column('date', { name: 'delivery_date' }) deliveryDate!: string;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'credit_blocks' })
export class CreditBlockEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('integer') vintage!: number;
  @Column('bigint', { name: 'serial_start' }) serialStart!: string;
  @Column('bigint', { name: 'serial_end' }) serialEnd!: string;
  @Column('integer') quantity!: number;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

export const CREDIT_EVENT_KINDS = ['issued', 'transferred', 'retired', 'cancelled'] as const;
export type CreditEventKind = (typeof CREDIT_EVENT_KINDS)[number];

@Entity({ name: 'credit_events' })
export class CreditEventEntity {
  @PrimaryGeneratedColumn('identity', { type: 'bigint', generatedIdentity: 'BY DEFAULT' }) id!: string;
  @Column('text', { name: 'block_id' }) blockId!: string;
  @Column('integer', { name: 'block_quantity' }) blockQuantity!: number;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text') kind!: CreditEventKind;
  @Column('date', { name: 'event_date' }) eventDate!: string;
  @Column('integer') quantity!: number;
  @Column('text', { nullable: true }) sender!: string | null;
  @Column('text', { nullable: true }) recipient!: string | null;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

@Entity({ name: 'emission_reduction_claims' })
export class EmissionReductionClaimEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text', { name: 'project_id' }) projectId!: string;
  @Column('text') period!: string;
  @Column('date', { name: 'period_start' }) periodStart!: string;
  @Column('date', { name: 'period_end' }) periodEnd!: string;
  @Column('numeric', { name: 'fuel_kg', transformer: numericTransformer }) fuelKg!: number;
  @Column('numeric', { name: 'reductions_tco2e', transformer: numericTransformer }) reductionsTco2e!: number;
  @Column('integer') reductions!: number;
  @Column('timestamptz', { name: 'updated_at' }) updatedAt!: Date;
}

export const REGISTRY_ENTITIES = [
  ProjectEntity,
  HouseholdEntity,
  HouseholdFuelEntity,
  DeviceEntity,
  FuelConsumptionEntity,
  FuelPurchaseEntity,
  FuelDeliveryEntity,
  CreditBlockEntity,
  CreditEventEntity,
  EmissionReductionClaimEntity,
];
