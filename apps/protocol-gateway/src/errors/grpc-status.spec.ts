import {
  GRPC_CODE_NAMES,
  grpcCodeForHttpStatus,
  httpStatusForGrpcCode,
  httpStatusForUpstream,
} from './grpc-status';

describe('gRPC status → HTTP status (grpc-gateway table)', () => {
  const table: Array<[string, number]> = [
    ['OK', 200],
    ['CANCELLED', 499],
    ['UNKNOWN', 500],
    ['INVALID_ARGUMENT', 400],
    ['DEADLINE_EXCEEDED', 504],
    ['NOT_FOUND', 404],
    ['ALREADY_EXISTS', 409],
    ['PERMISSION_DENIED', 403],
    ['RESOURCE_EXHAUSTED', 429],
    ['FAILED_PRECONDITION', 400],
    ['ABORTED', 409],
    ['OUT_OF_RANGE', 400],
    ['UNIMPLEMENTED', 501],
    ['INTERNAL', 500],
    ['UNAVAILABLE', 503],
    ['DATA_LOSS', 500],
    ['UNAUTHENTICATED', 401],
  ];

  it('covers every code of the spec', () => {
    expect(table.map(([name]) => name)).toEqual([...GRPC_CODE_NAMES]);
  });

  it.each(table)('%s → %i', (name, httpStatus) => {
    expect(httpStatusForGrpcCode(GRPC_CODE_NAMES.indexOf(name as (typeof GRPC_CODE_NAMES)[number]))).toBe(
      httpStatus,
    );
  });

  it('answers 500 for a code outside the spec', () => {
    expect(httpStatusForGrpcCode(17)).toBe(500);
    expect(httpStatusForGrpcCode(-1)).toBe(500);
  });
});

describe('upstream answers', () => {
  it.each([
    [2, 'claim bafk: code 1100: claim not found', 404],
    [2, 'rpc error: code = Unknown desc = Entity Not Found', 404],
    [2, 'foundation exploded', 500],
    [2, 'notfound', 500],
    [5, 'entity x not found', 404],
    [13, 'not found in cache', 500],
    [3, 'paginate: invalid request', 400],
  ])('code %i with %j → %i', (code, message, httpStatus) => {
    expect(httpStatusForUpstream(code, message)).toBe(httpStatus);
  });
});

describe('HTTP status of our own errors → the body code', () => {
  it.each([
    [400, 3],
    [401, 16],
    [403, 7],
    [404, 5],
    [405, 12],
    [408, 4],
    [409, 10],
    [413, 8],
    [414, 8],
    [415, 3],
    [417, 9],
    [431, 8],
    [429, 8],
    [499, 1],
    [501, 12],
    [503, 14],
    [504, 4],
    [500, 13],
    [502, 13],
    [418, 2],
  ])('%i → %i', (httpStatus, code) => {
    expect(grpcCodeForHttpStatus(httpStatus)).toBe(code);
  });
});
