import type { GrpcStatusErrorBody } from '@dmrv/contracts';
import { ErrorRenderer } from '@dmrv/errors';
import { GatewayError } from './gateway-error';
import { grpcCodeForHttpStatus } from './grpc-status';

/**
 * grpc-gateway's error body `{code, message, details}` for every failure of this app, including framework errors
 * (404 of unknown routes, body too large). Our GatewayErrors carry their own gRPC code and a message safe to show.
 */
export const renderGrpcStatusBody: ErrorRenderer = (error) => {
  const cause = error.cause;
  if (cause instanceof GatewayError) {
    const body: GrpcStatusErrorBody = { code: cause.grpcCode, message: cause.publicMessage, details: [] };
    return { status: error.status, body, headers: cause.headers };
  }
  const body: GrpcStatusErrorBody = {
    code: grpcCodeForHttpStatus(error.status),
    message: error.message,
    details: [],
  };
  return { status: error.status, body };
};
