export * from './load-config';
export { RemovedVariables, type RemovedVariableGuidance } from './removed-variables';
export * from './file-variables';
export * from './transforms';
export * from './base-service.config';
export * from './database.config';
export { ConfigModule } from './config.module';
