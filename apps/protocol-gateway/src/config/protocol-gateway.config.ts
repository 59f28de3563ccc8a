import { IsDefined, IsInt, IsString, Matches, Max, Min } from 'class-validator';
import { AsInteger, BaseServiceConfig } from '@dmrv/config';

export class ProtocolGatewayConfig extends BaseServiceConfig {
  @AsInteger()
  @IsInt()
  @Min(1)
  @Max(65535)
  override PORT = 3002;

  /** host:port of the chain node's gRPC query endpoint. */
  @IsDefined({ message: 'is required: host:port of the chain node gRPC endpoint, e.g. 127.0.0.1:9090' })
  @IsString()
  @Matches(/^[A-Za-z0-9.\-_[\]:]+:\d{1,5}$/, { message: 'must be host:port' })
  GRPC_UPSTREAM!: string;
}
