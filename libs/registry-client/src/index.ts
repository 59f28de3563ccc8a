export * from './generated';
export { RegistryApiError, RegistryClient } from './registry-client';
export type { ItemOf, RegistryClientOptions } from './registry-client';
