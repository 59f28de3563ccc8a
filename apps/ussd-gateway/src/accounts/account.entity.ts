import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { PhoneEntity } from './phone.entity';

@Entity({ name: 'ussd_accounts' })
export class AccountEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'customer_id', type: 'varchar', length: 9, unique: true })
  customerId!: string;

  @Column({ name: 'full_name', type: 'varchar', length: 120 })
  fullName!: string;

  @Column({ type: 'varchar', length: 80, nullable: true })
  email!: string | null;

  @ManyToOne(() => PhoneEntity, { nullable: false, onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'phone_id' })
  phone!: PhoneEntity;

  /** The sealed PIN (see PinVault): never the PIN, never a bare hash. */
  @Column({ name: 'pin_hash', type: 'text' })
  pinHash!: string;

  @Column({ name: 'pin_key_id', type: 'varchar', length: 16 })
  pinKeyId!: string;

  /** The idempotency key of the hop that created the account (null for accounts made before keys existed). */
  @Column({ name: 'creation_key', type: 'varchar', length: 64, nullable: true, unique: true })
  creationKey!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
