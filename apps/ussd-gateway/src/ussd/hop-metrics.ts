import type { Counter, Metrics } from '@dmrv/metrics';
import type { Farewell, ScreenId, VerifyOutcome } from '../menus/menu-machine';

/**
 * How a hop ended: `continue` (a CON screen), `end` (an END screen), `replay` (an aggregator's retry, answered from
 * memory), `after_end` (a hop on a session that had ended), `out_of_step` (text that does not continue the session:
 * answered, nothing changed), `invalid` (a request the gateway could not read), `rate_limited`, `unavailable` (a
 * dependency failed or the hop ran out of time).
 */
export type HopOutcome =
  | 'continue'
  | 'end'
  | 'replay'
  | 'after_end'
  | 'out_of_step'
  | 'invalid'
  | 'rate_limited'
  | 'unavailable';

/** How a session ended: the farewell screen's kind. Sessions the aggregator abandons never end here. */
export type SessionOutcome =
  | 'goodbye'
  | 'locked_now'
  | 'locked'
  | 'account_missing'
  | 'pin_hash_busy'
  | 'pin_changed_elsewhere'
  | 'account_created'
  | 'order_placed'
  | 'ticket_created';

export function sessionOutcomeOf(farewell: Farewell | undefined): SessionOutcome {
  switch (farewell?.kind) {
    case undefined:
    case 'goodbye':
      return 'goodbye';
    case 'lockedNow':
      return 'locked_now';
    case 'locked':
      return 'locked';
    case 'accountMissing':
      return 'account_missing';
    case 'pinHashBusy':
    case 'pinHashBusyCreate':
    case 'pinHashBusyChange':
      return 'pin_hash_busy';
    case 'pinNotChanged':
    case 'pinChangedElsewhere':
      return 'pin_changed_elsewhere';
    case 'accountCreated':
      return 'account_created';
    case 'orderPlaced':
      return 'order_placed';
    case 'ticketCreated':
      return 'ticket_created';
  }
}

/** What one answered hop says about itself, for the counters. */
export interface HopReport {
  outcome: HopOutcome;
  /** The menu screen the hop left the session on; `none` when the hop never reached the menus. */
  screen: ScreenId | 'none';
  /** The session's language (see languages.ts); absent when the hop never reached the menus. */
  language?: string;
  /** The hop opened the session. */
  started: boolean;
  /** The hop closed the session, and how. */
  ended?: SessionOutcome;
}

/** The label of hops that never reached a session's language (invalid, refused, unavailable) and of English ones. */
export const SESSION_LANGUAGE = 'en';

/**
 * The hop's families (HTTP, pool and process metrics come from @dmrv/metrics):
 * - `dmrv_ussd_hops_total{outcome, screen, language}`;
 * - `dmrv_ussd_sessions_started_total{language}`, `dmrv_ussd_sessions_ended_total{outcome, language}`;
 * - `dmrv_ussd_pin_failures_total{reason}`: `wrong_pin` (a Customer ID without an account counts as one: the
 *   service answers both alike), `locked` (a PIN sent to a locked Customer ID), `busy` (not checked: too many
 *   attempts on that Customer ID were being checked at once), `hash_busy` (not checked nor charged: every PIN hash
 *   slot was taken for longer than the hop may wait, see PinHashGate); and `dmrv_ussd_pin_lockouts_total`.
 * The Redis script timings are telemetry/'s, the refusals rate-limit/'s (RateLimitMetrics).
 */
export class HopMetrics {
  private readonly hops: Counter;
  private readonly started: Counter;
  private readonly ended: Counter;
  private readonly pinFailures: Counter;
  private readonly lockouts: Counter;

  constructor(metrics: Metrics) {
    this.hops = metrics.counter(
      'dmrv_ussd_hops_total',
      'USSD requests (hops), by outcome, the screen shown and language',
      ['outcome', 'screen', 'language'],
    );
    this.started = metrics.counter('dmrv_ussd_sessions_started_total', 'USSD sessions opened, by language', [
      'language',
    ]);
    this.ended = metrics.counter(
      'dmrv_ussd_sessions_ended_total',
      'USSD sessions that reached an END screen, by outcome',
      ['outcome', 'language'],
    );
    this.pinFailures = metrics.counter('dmrv_ussd_pin_failures_total', 'PIN checks that failed, by reason', [
      'reason',
    ]);
    this.lockouts = metrics.counter(
      'dmrv_ussd_pin_lockouts_total',
      'Customer IDs locked after too many wrong PINs',
    );
  }

  hop(report: HopReport): void {
    const language = report.language ?? SESSION_LANGUAGE;
    this.hops.inc({ outcome: report.outcome, screen: report.screen, language });
    if (report.started) this.started.inc({ language });
    if (report.ended !== undefined) this.ended.inc({ outcome: report.ended, language });
  }

  /** A hop that never reached the menus. */
  hopFailed(outcome: 'invalid' | 'rate_limited' | 'unavailable'): void {
    this.hops.inc({ outcome, screen: 'none', language: SESSION_LANGUAGE });
  }

  pinVerified(outcome: VerifyOutcome): void {
    switch (outcome.kind) {
      case 'ok':
        return;
      case 'wrong':
        this.pinFailures.inc({ reason: 'wrong_pin' });
        return;
      case 'busy':
        this.pinFailures.inc({ reason: 'busy' });
        return;
      case 'overloaded':
        this.pinFailures.inc({ reason: 'hash_busy' });
        return;
      case 'locked':
        if (outcome.justNow) {
          this.pinFailures.inc({ reason: 'wrong_pin' });
          this.lockouts.inc();
        } else {
          this.pinFailures.inc({ reason: 'locked' });
        }
    }
  }
}
