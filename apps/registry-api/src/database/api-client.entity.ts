import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity({ name: 'api_clients' })
export class ApiClientEntity {
  @PrimaryColumn('text') id!: string;
  @Column('text') name!: string;
  /** `scrypt$N$r$p$salt$hash`, base64url parts; the secret itself is never stored. */
  @Column('text', { name: 'secret_hash' }) secretHash!: string;
  @Column('timestamptz', { name: 'created_at' }) createdAt!: Date;
  @Column('timestamptz', { name: 'revoked_at', nullable: true }) revokedAt!: Date | null;
}
