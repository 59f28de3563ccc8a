import { IsDefined, IsString, Matches } from 'class-validator';
import { BaseServiceConfig } from './base-service.config';
import { IntegerVariable } from './transforms';

/** Variables of every service that keeps its data in PostgreSQL. Apps extend this class with their own. */
export class DatabaseConfig extends BaseServiceConfig {
  @IsDefined({ message: 'is required: postgres://user:password@host:5432/database' })
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL!: string;

  /** Connections in this process's pool; replicas × this must stay under the server's max_connections. */
  @IntegerVariable({ min: 1, max: 200 })
  DATABASE_POOL_SIZE = 10;
}
