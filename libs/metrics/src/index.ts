export type { Counter, Histogram } from 'prom-client';
export { HTTP_BUCKETS, HttpMetrics, setMetricsRoute, UNMATCHED_ROUTE, UNOBSERVED } from './http-metrics';
export {
  bearerMatches,
  installMetricsRoute,
  METRICS_CHALLENGE,
  METRICS_PATH,
  MetricsServer,
} from './metrics-endpoint';
export { METRIC_PREFIX, Metrics } from './metrics';
export type { GaugeDefinition, PoolCounts } from './metrics';
export { METRICS_OPTIONS, MetricsModule } from './metrics.module';
export type { MetricsExposure, MetricsModuleOptions } from './metrics.module';
export { buildInfo, registerBuildInfo, UNKNOWN_COMMIT } from './build-info';
export type { BuildInfo } from './build-info';
