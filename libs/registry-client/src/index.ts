export { basicCredentials, createRegistryClient } from './registry-client.js';
export type {
  CallOptions,
  PageOptions,
  RegistryClient,
  RegistryClientOptions,
  WithQuery,
} from './registry-client.js';
export { RepeatedCursorError } from './paginate.js';
export type { Page } from './paginate.js';
export { conditionalRequests, MemoryResponseCache } from './conditional-requests.js';
export type { CachedAnswer, ResponseCache } from './conditional-requests.js';
export { SignatureVerificationError, verifySignatures } from './signature-verification.js';
export type { SignatureFailure, SignatureVerification } from './signature-verification.js';
export type {
  ErrorBody,
  ItemOf,
  ListPath,
  ListQuery,
  RegistryAnswer,
  RegistryPath,
  RouteParameters,
  Schema,
} from './routes.js';
export type { components, operations, paths } from './openapi.generated.js';
export { DEFAULT_RETRY, HttpError, NetworkError, TimeoutError } from '@dmrv/http-client-kit';
export type { FetchFunction, RetryOptions } from '@dmrv/http-client-kit';
export type { JsonWebKeySet } from '@dmrv/http-signatures';
