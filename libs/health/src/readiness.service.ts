import { Inject, Injectable, ServiceUnavailableException } from '@nestjs/common';
import {
  HealthCheckResult,
  HealthCheckService,
  HealthIndicatorResult,
  HealthIndicatorService,
} from '@nestjs/terminus';
import type { DependencyReport, ReadinessBody } from '@dmrv/contracts';
import { checkWithin, DependencyProbe } from './probes';

export const HEALTH_PROBES = Symbol('HEALTH_PROBES');

function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // Connection strings in driver errors may carry a password.
  return message.replace(/\/\/[^@/\s]+@/g, '//[redacted]@');
}

@Injectable()
export class ReadinessService {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    @Inject(HEALTH_PROBES) private readonly probes: DependencyProbe[],
  ) {}

  /** Runs every probe in parallel, each with its own deadline; only the required ones decide the status. */
  async check(): Promise<ReadinessBody> {
    const required = this.probes.filter((probe) => probe.required !== false);
    const optional = this.probes.filter((probe) => probe.required === false);
    const [result, optionalResults] = await Promise.all([
      this.health.check(required.map((probe) => () => this.run(probe))).catch((error: unknown) => {
        if (!(error instanceof ServiceUnavailableException)) throw error;
        return error.getResponse() as HealthCheckResult;
      }),
      Promise.all(optional.map((probe) => this.run(probe))),
    ]);
    const checks: Record<string, DependencyReport> = {};
    for (const [name, detail] of [
      ...Object.entries(result.details),
      ...optionalResults.flatMap(Object.entries),
    ]) {
      const { status, latencyMs, error } = detail as { status: string; latencyMs: number; error?: string };
      checks[name] = { status: status === 'up' ? 'up' : 'down', latencyMs, ...(error ? { error } : {}) };
    }
    return { status: result.status === 'ok' ? 'ok' : 'error', checks };
  }

  private async run(probe: DependencyProbe): Promise<HealthIndicatorResult> {
    const indicator = this.indicators.check(probe.name);
    const started = performance.now();
    try {
      await checkWithin(probe);
      return indicator.up({ latencyMs: Math.round(performance.now() - started) });
    } catch (error) {
      return indicator.down({ latencyMs: Math.round(performance.now() - started), error: describe(error) });
    }
  }
}
