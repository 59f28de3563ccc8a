import { checkWithin, DependencyProbe } from '@dmrv/health';
import type { Metrics } from '@dmrv/metrics';

/**
 * `dmrv_ussd_dependency_up{dependency}`, asked at each scrape, not read from the last readiness check: a database
 * outage keeps the pods ready and answering every account hop "unavailable", and this is where it shows. The probes
 * are the readiness ones, registered from above by the status module that defines them.
 */
export class DependencyGauge {
  private probes: readonly DependencyProbe[] = [];

  constructor(metrics: Metrics) {
    metrics.gauge({
      name: 'dmrv_ussd_dependency_up',
      help: 'Whether each dependency answered this scrape within its probe deadline (1) or not (0): database, redis',
      labelNames: ['dependency'],
      collect: async (gauge) => {
        const probes = this.probes;
        const answered = await Promise.all(
          probes.map((probe) =>
            checkWithin(probe).then(
              () => 1,
              () => 0,
            ),
          ),
        );
        probes.forEach((probe, index) => gauge.set({ dependency: probe.name }, answered[index]!));
      },
    });
  }

  watch(probes: readonly DependencyProbe[]): void {
    this.probes = probes;
  }
}
