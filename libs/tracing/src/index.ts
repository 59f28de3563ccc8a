export * from './tracing';
export { parseKeyValues, tracingSettings } from './tracing-settings';
export type { TracingEnvironment, TracingSettings } from './tracing-settings';
export { TracingModule } from './tracing.module';
export type { TracingModuleOptions } from './tracing.module';
export { postgresAttributes, tracePgPool } from './pg-pool';
export type { TraceablePool } from './pg-pool';
