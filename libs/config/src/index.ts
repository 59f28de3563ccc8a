export * from './load-config';
export * from './transforms';
export * from './base-service.config';
