import type { HopReport } from './hop-metrics';
import type { UssdSessionRecord } from './hop-opener';

export const OUT_OF_STEP_REPLY = 'END This session is out of step. Please dial again.';
export const ENDED_REPLY = 'END This session has ended. Please dial again.';

/** What a hop answers, what it says of itself for the counters, and the record to save (none: nothing changes). */
export interface HopResult {
  value: { reply: string; report: HopReport };
  save?: UssdSessionRecord;
}

/**
 * A hop answered without running the menus: an aggregator's retry (the remembered answer; nothing is applied twice
 * but the session's clock restarts) or a hop on a session that has ended. Undefined: the hop has work to do.
 */
export function replayed(existing: UssdSessionRecord, textDigest: string): HopResult | undefined {
  const remembered = existing.replies.find((entry) => entry.textDigest === textDigest);
  if (remembered) {
    const { screen, language } = existing.state;
    return {
      value: { reply: remembered.reply, report: { outcome: 'replay', screen, language, started: false } },
      save: existing.status === 'active' ? existing : undefined,
    };
  }
  if (existing.status === 'ended') {
    return {
      value: { reply: ENDED_REPLY, report: { outcome: 'after_end', screen: 'ended', started: false } },
    };
  }
  return undefined;
}

/**
 * Whoever sent it (the aggregator lost track, or someone who knows the session id and phone number), a text that
 * does not continue the session is answered and changes nothing: the subscriber can still go on.
 */
export function outOfStep(existing: UssdSessionRecord | null): HopResult {
  return {
    value: {
      reply: OUT_OF_STEP_REPLY,
      report: {
        outcome: 'out_of_step',
        screen: existing?.state.screen ?? 'none',
        language: existing?.state.language,
        started: false,
      },
    },
  };
}
