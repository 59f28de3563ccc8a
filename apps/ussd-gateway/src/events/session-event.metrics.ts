import type { Counter, Histogram, Metrics } from '@dmrv/metrics';
import type { SessionEventStatus } from './session-event';

/**
 * What became of a notification: `closed` (it found the session open and closed it), `not_open` (the session had
 * ended, expired or never existed here), `other_phone` (the session kept here belongs to another phone: refused, not
 * kept), `duplicate` (already kept), `invalid`.
 */
export type SessionEventResult = 'closed' | 'not_open' | 'other_phone' | 'duplicate' | 'invalid';

/**
 * The aggregator's session-end notifications:
 * - `dmrv_ussd_session_events_total{status, result}` (`status`: `success`, `incomplete`, `failed`; `invalid` for a
 *   notification that could not be read);
 * - `dmrv_ussd_session_reported_duration_seconds{status}` (histogram): session lengths as the aggregator measured
 *   them, each session once.
 */
export class SessionEventMetrics {
  private readonly events: Counter;
  private readonly durations: Histogram;

  constructor(metrics: Metrics) {
    this.events = metrics.counter(
      'dmrv_ussd_session_events_total',
      "The aggregator's session-end notifications, by reported status and what became of them",
      ['status', 'result'],
    );
    this.durations = metrics.histogram(
      'dmrv_ussd_session_reported_duration_seconds',
      'Session lengths reported by the aggregator at session end, by status',
      ['status'],
      [1, 5, 10, 20, 30, 45, 60, 90, 120, 180, 300],
    );
  }

  received(
    status: SessionEventStatus,
    result: Exclude<SessionEventResult, 'invalid'>,
    durationInMillis: number | null,
  ): void {
    const label = status.toLowerCase();
    this.events.inc({ status: label, result });
    if (result !== 'duplicate' && result !== 'other_phone' && durationInMillis !== null)
      this.durations.observe({ status: label }, durationInMillis / 1000);
  }

  refused(): void {
    this.events.inc({ status: 'invalid', result: 'invalid' });
  }
}
