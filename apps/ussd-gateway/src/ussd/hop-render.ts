import type { MenuRenderer } from '../menus/menu-renderer';
import { isEnded, MenuState } from '../menus/menu-machine';
import { ConsumedMark, MAX_REMEMBERED_REPLIES } from '../sessions/session-store';
import { sessionOutcomeOf } from './hop-metrics';
import type { HopResult } from './hop-replay';
import type { ResumedSession } from './hop-resume';

/**
 * The screen `state` shows, as the hop's answer, and the record to save: the new state, the text consumed (all of
 * it), and the answer remembered for an aggregator's retry of this very text.
 */
export function rendered(
  renderer: MenuRenderer,
  resumed: ResumedSession,
  state: MenuState,
  consumed: ConsumedMark,
  started: boolean,
): HopResult {
  const screen = renderer.render(state);
  const reply = `${screen.kind} ${screen.text}`;
  const ended = isEnded(state);
  const { record, now } = resumed;
  return {
    value: {
      reply,
      report: {
        outcome: screen.kind === 'CON' ? 'continue' : 'end',
        screen: state.screen,
        language: state.language,
        started,
        ended: ended ? sessionOutcomeOf(state.farewell) : undefined,
      },
    },
    save: {
      ...record,
      state,
      consumed,
      status: ended ? 'ended' : 'active',
      replies: [...record.replies, { textDigest: consumed.digest, reply }].slice(-MAX_REMEMBERED_REPLIES),
      updatedAt: now,
    },
  };
}
