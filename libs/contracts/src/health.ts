export type DependencyState = 'up' | 'down';

export interface DependencyReport {
  status: DependencyState;
  /** Time the probe took, in milliseconds. */
  latencyMs: number;
  /** Why the dependency is down; never contains credentials. */
  error?: string;
}

/** Body of a readiness probe: `ok` only when every dependency answered in time. */
export interface ReadinessBody {
  status: 'ok' | 'error';
  checks: Record<string, DependencyReport>;
}

/** Body of a liveness probe: the process is up and serving HTTP. */
export interface LivenessBody {
  status: 'ok';
  service: string;
  uptime: number;
}
