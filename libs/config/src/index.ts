export * from './load-config';
export * from './file-variables';
export * from './transforms';
export * from './base-service.config';
export * from './database.config';
