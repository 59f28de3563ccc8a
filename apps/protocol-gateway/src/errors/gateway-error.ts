import { DomainError } from '@dmrv/errors';
import { grpcCodeName, httpStatusForGrpcCode } from './grpc-status';

/**
 * A failure with a gRPC status, raised by the gateway itself or translated from the upstream's answer.
 * `publicMessage` is what the client reads even for 5xx: we only set it to text we wrote (never an upstream's
 * internal detail), so a client can tell "method not served" from "node down" from "too slow".
 */
export class GatewayError extends DomainError {
  constructor(
    readonly grpcCode: number,
    message: string,
    httpStatus: number = httpStatusForGrpcCode(grpcCode),
    readonly publicMessage: string = message,
    readonly headers: Record<string, string> = {},
  ) {
    super(grpcCodeName(grpcCode), message, httpStatus);
  }
}
