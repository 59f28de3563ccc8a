import { DomainError } from '@dmrv/errors';
import { grpcCodeName, httpStatusForGrpcCode } from './grpc-status';

export interface GatewayErrorOptions {
  grpcCode: number;
  /** The full detail, for the log. */
  message: string;
  /** Default: grpc-gateway's status for `grpcCode`. */
  httpStatus?: number;
  /** What the client reads; default `message`. Only ever text we wrote, never an upstream's internal detail. */
  publicMessage?: string;
  headers?: Record<string, string>;
}

/**
 * A failure with a gRPC status, raised by the gateway itself or translated from the upstream's answer.
 * `publicMessage` is what the client reads even for 5xx, so a client can tell "method not served" from "node down"
 * from "too slow".
 */
export class GatewayError extends DomainError {
  readonly grpcCode: number;
  readonly publicMessage: string;
  readonly headers: Record<string, string>;

  constructor(options: GatewayErrorOptions) {
    super(
      grpcCodeName(options.grpcCode),
      options.message,
      options.httpStatus ?? httpStatusForGrpcCode(options.grpcCode),
    );
    this.grpcCode = options.grpcCode;
    this.publicMessage = options.publicMessage ?? options.message;
    this.headers = options.headers ?? {};
  }
}
