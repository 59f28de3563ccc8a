/** gRPC status codes by number, as named in the gRPC spec (and printed by grpc-gateway). */
export const GRPC_CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
] as const;

export type GrpcCodeName = (typeof GRPC_CODE_NAMES)[number];

export const GrpcCode: { readonly [name in GrpcCodeName]: number } = Object.fromEntries(
  GRPC_CODE_NAMES.map((name, code) => [name, code]),
) as { [name in GrpcCodeName]: number };

/**
 * grpc-gateway's table, which Cosmos clients are written against. FAILED_PRECONDITION is 400 and not 412 because
 * HTTP's precondition headers are not what failed: the request asked for something the current state forbids.
 * CANCELLED is nginx's 499 because the client gave up, not the server.
 */
const HTTP_BY_CODE: Readonly<Record<number, number>> = {
  0: 200,
  1: 499,
  2: 500,
  3: 400,
  4: 504,
  5: 404,
  6: 409,
  7: 403,
  8: 429,
  9: 400,
  10: 409,
  11: 400,
  12: 501,
  13: 500,
  14: 503,
  15: 500,
  16: 401,
};

export function grpcCodeName(code: number): string {
  return GRPC_CODE_NAMES[code] ?? `CODE_${code}`;
}

/** HTTP status for a gRPC status code; codes outside the spec are 500 (an upstream we do not understand). */
export function httpStatusForGrpcCode(code: number): number {
  return HTTP_BY_CODE[code] ?? 500;
}

// ixo modules wrap their registered errors ("claim not found", code 1100) in UNKNOWN; a REST client deserves 404.
const UNKNOWN_NOT_FOUND = /\bnot found\b/i;

/**
 * The HTTP status for a status an upstream node answered. Differs from the plain table in one documented way:
 * UNKNOWN whose message says "not found" is 404.
 */
export function httpStatusForUpstream(code: number, message: string): number {
  if (code === GrpcCode.UNKNOWN && UNKNOWN_NOT_FOUND.test(message)) return 404;
  return httpStatusForGrpcCode(code);
}

/** The gRPC code that best describes an HTTP status we produce ourselves (the body's `code`). */
export function grpcCodeForHttpStatus(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
      return GrpcCode.INVALID_ARGUMENT;
    case 401:
      return GrpcCode.UNAUTHENTICATED;
    case 403:
      return GrpcCode.PERMISSION_DENIED;
    case 404:
      return GrpcCode.NOT_FOUND;
    // grpc-gateway answers a wrong verb with UNIMPLEMENTED in the body and 405 on the wire.
    case 405:
      return GrpcCode.UNIMPLEMENTED;
    // The client was too slow to send its request.
    case 408:
      return GrpcCode.DEADLINE_EXCEEDED;
    case 409:
      return GrpcCode.ABORTED;
    // Too large: a body, a URL, headers (the last two refused by Node before any route).
    case 413:
    case 414:
    case 431:
      return GrpcCode.RESOURCE_EXHAUSTED;
    case 415:
      return GrpcCode.INVALID_ARGUMENT;
    // The request expects something (an Expect header) this server does not offer.
    case 417:
      return GrpcCode.FAILED_PRECONDITION;
    case 429:
      return GrpcCode.RESOURCE_EXHAUSTED;
    case 499:
      return GrpcCode.CANCELLED;
    case 501:
      return GrpcCode.UNIMPLEMENTED;
    case 503:
      return GrpcCode.UNAVAILABLE;
    case 504:
      return GrpcCode.DEADLINE_EXCEEDED;
    default:
      return httpStatus >= 500 ? GrpcCode.INTERNAL : GrpcCode.UNKNOWN;
  }
}
