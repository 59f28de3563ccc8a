export * from './tracing';
export { parseKeyValues, tracingRequested, tracingSettings } from './tracing-settings';
export type { TracingEnvironment, TracingSettings } from './tracing-settings';
export { TracingModule } from './tracing.module';
export type { TracingModuleOptions } from './tracing.module';
export { instrumentPostgres } from './postgres-instrumentation';
