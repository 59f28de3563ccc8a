import { BACK, end, EXIT, go, MachineContext, MAIN_MENU, MenuState, Step, EffectResult } from './flows/flow';
import { FlowScreen, SCREEN_SPECS, ScreenId } from './flows/flows';

/**
 * The menu logic as a pure state machine: state in, input out, no I/O. Work that needs the database or the PIN
 * vault is requested as an `Effect`; the caller performs it and feeds the `EffectResult` back. Each flow is its own
 * machine in `flows/` (its screens, transitions and what they show); this file routes a state to its screen's flow
 * and applies what every screen shares: `*`, `0`, `00` (see README).
 */

export type { AccountDetails } from './flows/account-home.flow';
export type { CatalogueItem, OrderSummary } from './flows/order.flow';
export type { Effect, EffectResult, Farewell, MachineContext, MenuState, Notice, Step, VerifyOutcome } from './flows/flow';
export { BACK, EXIT, MAIN_MENU, MORE } from './flows/flow';
export type { ScreenId } from './flows/flows';

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
export function signedOutByPinChange(language?: string): MenuState {
  return end({ language }, { kind: 'pinChangedElsewhere' }).state;
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
