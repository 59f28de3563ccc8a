import { IsDefined, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { AsInteger, BaseServiceConfig } from '@dmrv/config';

export class UssdConfig extends BaseServiceConfig {
  @IsDefined({ message: 'is required: postgres://user:password@host:5432/database' })
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL!: string;

  @AsInteger()
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;

  /** Without it, sessions and rate-limit counters live in this process only (single-instance local use). */
  @IsOptional()
  @IsString()
  @Matches(/^rediss?:\/\//, { message: 'must be a redis:// or rediss:// URL' })
  REDIS_URL?: string;

  /** AES-256 key for PINs at rest: 32 bytes as 64 hex characters or base64. */
  @IsDefined({ message: 'is required: a 32-byte key as 64 hex characters or base64 (openssl rand -hex 32)' })
  @IsString()
  @Matches(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=)$/, { message: 'must be 32 bytes as 64 hex characters or base64' })
  PIN_ENCRYPTION_KEY!: string;
}
