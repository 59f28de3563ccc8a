import { IsDefined, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { AsInteger, BaseServiceConfig } from '@dmrv/config';

export class RegistryConfig extends BaseServiceConfig {
  @AsInteger()
  @IsInt()
  @Min(1)
  @Max(65535)
  override PORT = 3001;

  @IsDefined({ message: 'is required: postgres://user:password@host:5432/database' })
  @IsString()
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  DATABASE_URL!: string;

  @AsInteger()
  @IsInt()
  @Min(1)
  @Max(200)
  DATABASE_POOL_SIZE = 10;
}
