import type { MessageKey } from '../languages';
import { isPinShaped, isTrivialPin } from '../menu-rules';
import { go, heldPinOf, prompt, stay } from './flow';
import type { EffectResult, MenuState, ScreenId, ScreenSpec, Step } from './flow-types';

/**
 * Choosing a new PIN, written once for account creation and PIN change: a screen takes it (refusing a trivial one)
 * and holds it encrypted, the next takes it again and compares; a mismatch starts over on the first screen.
 */
export interface NewPinScreens {
  enter: { screen: ScreenId; prompt: MessageKey; back(state: MenuState): Step };
  confirm: { screen: ScreenId; prompt: MessageKey };
  /** What the first screen keeps of the flow's draft when the second sends the subscriber back to it. */
  kept(state: MenuState): Partial<MenuState>;
  /** Both entries matched: the effect that writes the PIN (`heldPin` is the encrypted first entry). */
  matched(state: MenuState, heldPin: string): Step;
  /** The answer to that effect. */
  written(state: MenuState, result: EffectResult): Step | undefined;
}

export function newPinScreen(screens: NewPinScreens): ScreenSpec {
  return {
    fixed: true,
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      if (isTrivialPin(input)) return stay(state, { kind: 'trivialPin' });
      return { state, effect: { type: 'holdPin', pin: input } };
    },
    back: (state) => screens.enter.back(state),
    result(state, result) {
      if (result.type !== 'held') return undefined;
      return go(state, screens.confirm.screen, { draft: { ...state.draft, heldPin: result.heldPin } });
    },
    view: (_state, kit) => prompt(kit, screens.enter.prompt),
  };
}

export function confirmPinScreen(screens: NewPinScreens): ScreenSpec {
  return {
    fixed: true,
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'matchPin', pin: input, heldPin: heldPinOf(state) } };
    },
    back: (state) => go(state, screens.enter.screen, screens.kept(state)),
    result(state, result) {
      if (result.type !== 'matched') return screens.written(state, result);
      const heldPin = heldPinOf(state);
      if (!result.match)
        return go(state, screens.enter.screen, { ...screens.kept(state), notice: { kind: 'pinMismatch' } });
      return screens.matched(state, heldPin);
    },
    view: (_state, kit) => prompt(kit, screens.confirm.prompt),
  };
}
