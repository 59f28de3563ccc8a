export { createChainClient, grpcStatus } from './chain-client.js';
export type { CallOptions, ChainClient, ChainClientOptions, PageOptions } from './chain-client.js';
export { RepeatedCursorError } from './paginate.js';
export type { Page } from './paginate.js';
export type { ChainAnswer, ChainPath, GrpcStatusBody, PagedPath, RouteParameters, Schema } from './routes.js';
export type { components, operations, paths } from './openapi.generated.js';
export { bytesFromBase64, parseDuration } from './values.js';
export type { Duration } from './values.js';
export {
  DEFAULT_RETRY,
  DEFAULT_TIMEOUT_MS,
  HttpError,
  NetworkError,
  TimeoutError,
} from '@dmrv/http-client-kit';
export type { FetchFunction, RetryOptions } from '@dmrv/http-client-kit';
