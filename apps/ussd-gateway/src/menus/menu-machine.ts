import { BACK, end, EXIT, go, MAIN_MENU } from './flows/flow';
import type { EffectResult, FlowScreen, MachineContext, MenuState, ScreenId, Step } from './flows/flow-types';
import { SCREEN_SPECS } from './flows/flows';
import { isPinShaped } from './menu-rules';

/**
 * The menu logic as a pure state machine: state in, input out, no I/O. Work that needs the database or the PIN
 * vault is requested as an `Effect`; the caller performs it and feeds the `EffectResult` back. Each flow is its own
 * machine in `flows/` (its screens, transitions and what they show); this file routes a state to its screen's flow
 * and applies what every screen shares: `*`, `0`, `00` (see README).
 */

export type {
  AccountDetails,
  CatalogueItem,
  Effect,
  EffectResult,
  Farewell,
  MachineContext,
  MenuState,
  Notice,
  OrderSummary,
  ScreenId,
  Step,
  VerifyOutcome,
} from './flows/flow-types';
export { BACK, EXIT, MAIN_MENU, MORE } from './flows/flow';

export const SCREENS: readonly ScreenId[] = [...(Object.keys(SCREEN_SPECS) as FlowScreen[]), 'ended'];

export function initialState(language?: string): MenuState {
  return language ? { screen: 'preMenu', language } : { screen: 'preMenu' };
}

export function isEnded(state: MenuState): boolean {
  return state.screen === 'ended';
}

export function isAuthenticated(state: MenuState): boolean {
  return state.auth !== undefined;
}

/** A signed-in session whose account got locked (by wrong PINs in another session): it ends, signed out. */
export function lockedOut(minutes: number, language?: string): MenuState {
  return end({ language }, { kind: 'locked', minutes }).state;
}

/** A signed-in session whose account's PIN was changed in another session: it ends, signed out. */
function signedOutByPinChange(language?: string): MenuState {
  return end({ language }, { kind: 'pinChangedElsewhere' }).state;
}

/**
 * A signed-in state checked against its account's PIN version now (`standing`; null when the account could not be
 * read) before `input`: a state that still carries an older version ends signed out. The one exception is a PIN sent
 * to the confirmation of this session's own new PIN: the version may have moved by that very change, committed by a
 * hop whose session write failed, and the change's idempotency key and compare-and-set decide (its retry is answered
 * "changed", anyone else's "not changed").
 */
export function heldToPinVersion(state: MenuState, standing: number | null, input?: string): MenuState {
  const version = state.auth?.pinVersion;
  if (version === undefined || standing === null || version === standing) return state;
  if (state.screen === 'changePinConfirm' && input !== undefined && isPinShaped(input.trim())) return state;
  return signedOutByPinChange(state.language);
}

/**
 * One input's outcome checked against the account's PIN version, and the version to check the next one against. A
 * version the step changed was just read from the database (a PIN check, a log-in, this session's own change
 * written or replayed), so it is the account's version from then on; any other state reached while the account's
 * version differs from the session's (back, `00`, a mismatched confirmation, a shortcut of several inputs) ends.
 */
export function afterStep(
  before: MenuState,
  after: MenuState,
  standing: number | null,
): { state: MenuState; standing: number | null } {
  const version = after.auth?.pinVersion;
  if (version !== before.auth?.pinVersion) return { state: after, standing: version ?? null };
  return { state: heldToPinVersion(after, standing), standing };
}

/** One subscriber input applied to the state. `0`, `00` and `*` mean the same on every screen (see README). */
export function applyInput(current: MenuState, rawInput: string, context: MachineContext): Step {
  const input = rawInput.trim();
  const state: MenuState = { ...current, notice: undefined };
  if (state.screen === 'ended') return { state };
  if (input === EXIT) return end(state, { kind: 'goodbye' });
  const screen = SCREEN_SPECS[state.screen];
  // On the screens that take `00` as "skip" it is theirs; everywhere else it is the main menu.
  if (input === MAIN_MENU && !screen.ownsMainMenu) return go(state, 'preMenu');
  if (input === BACK) return screen.back(state);
  return screen.input(state, input, context);
}

/** The answer to the effect that `state` asked for. */
export function applyEffectResult(state: MenuState, result: EffectResult): Step {
  const step = state.screen === 'ended' ? undefined : SCREEN_SPECS[state.screen].result?.(state, result);
  if (!step) throw new Error(`effect result ${result.type} does not belong to screen ${state.screen}`);
  return step;
}
