export * from './probes';
export * from './readiness.service';
export * from './health.controller';
export * from './health.module';
export * from './tokens';
