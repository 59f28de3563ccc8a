/** Error body of the registry API and of the USSD gateway's JSON endpoints: one human-readable string. */
export interface MessageErrorBody {
  message: string;
}

/**
 * Error body of the protocol gateway, as grpc-gateway prints it, so Cosmos clients parse our errors unchanged.
 * `code` is the numeric gRPC status code.
 */
export interface GrpcStatusErrorBody {
  code: number;
  message: string;
  details: unknown[];
}
