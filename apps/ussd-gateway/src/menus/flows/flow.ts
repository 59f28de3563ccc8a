import type { MessageKey } from '../languages';
import type {
  Farewell,
  MachineContext,
  MenuState,
  Notice,
  ScreenId,
  ScreenView,
  Step,
  VerifyOutcome,
  ViewKit,
} from './flow-types';

/** What every flow's screens are written with: moving between screens, hints, pages, prompts and PIN outcomes. */

export const EXIT = '*';
export const BACK = '0';
export const MAIN_MENU = '00';
export const MORE = '98';

export const go = (state: MenuState, screen: ScreenId, extra: Partial<MenuState> = {}): Step => ({
  state: { ...withoutTransient(state), screen, ...extra },
});

/** What survives a screen change: who is signed in, and the language. Drafts, hints and pages belong to one screen or flow. */
function withoutTransient(state: MenuState): MenuState {
  return { screen: state.screen, ...lasting(state) };
}

/** What a session keeps whatever happens to the screens: the language, and who is signed in. */
export function lasting(state: Pick<MenuState, 'language' | 'auth'>): Pick<MenuState, 'language' | 'auth'> {
  return {
    ...(state.language ? { language: state.language } : {}),
    ...(state.auth ? { auth: state.auth } : {}),
  };
}

export const stay = (state: MenuState, notice: Notice, keep: Partial<MenuState> = {}): Step => ({
  state: { ...state, ...keep, notice },
});

/** The session ends signed out, its farewell in its language. */
export const end = (state: Pick<MenuState, 'language'>, farewell: Farewell): Step => ({
  state: { screen: 'ended', ...(state.language ? { language: state.language } : {}), farewell },
});

/** `98` on a paged screen: the next page, or the invalid-choice hint on the last. */
export function nextPage(state: MenuState, input: string, context: MachineContext): Step | undefined {
  const page = state.page ?? 0;
  if (input === MORE && page + 1 < context.pageCount(state)) return { state: { ...state, page: page + 1 } };
  return undefined;
}

/** `0` on a paged screen: the previous page, or `otherwise` from the first. */
export function previousPage(state: MenuState, otherwise: () => Step): Step {
  if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
  return otherwise();
}

export const numbered = (labels: string[]): string[] =>
  labels.map((label, index) => `${index + 1}. ${label}`);

/** A screen asking for one value: its prompt and the full navigation. */
export const prompt = (kit: ViewKit, key: MessageKey): ScreenView => ({
  kind: 'menu',
  menus: [{ lines: [kit.t(key)], options: [], nav: kit.nav.deep }],
});

/** A PIN check's outcome on any screen that asked for one; `ok` is the screen's own. */
export function afterVerify(
  state: MenuState,
  outcome: VerifyOutcome,
  ok: (outcome: Extract<VerifyOutcome, { kind: 'ok' }>) => Step,
): Step {
  switch (outcome.kind) {
    case 'ok':
      return ok(outcome);
    case 'wrong':
      // Signed in, the account is known to the subscriber; at log-in the Customer ID may be what is wrong.
      if (state.screen !== 'loginPin')
        return stay(state, { kind: 'wrongPin', attemptsLeft: outcome.attemptsLeft });
      return stay(state, { kind: 'wrongCredentials', attemptsLeft: outcome.attemptsLeft });
    case 'locked':
      return end(
        state,
        outcome.justNow
          ? { kind: 'lockedNow', minutes: outcome.minutes }
          : { kind: 'locked', minutes: outcome.minutes },
      );
    case 'busy':
      return stay(state, { kind: 'pinBusy' });
    case 'overloaded':
      return end(state, { kind: 'pinHashBusy' });
  }
}

export function heldPinOf(state: MenuState): string {
  return requireValue(state.draft?.heldPin, 'draft.heldPin');
}

export function requireValue<T>(value: T | undefined | null, name: string): T {
  // A state missing what its screen needs can only come from a bug or a tampered store; fail loudly.
  if (value === undefined || value === null) throw new Error(`menu state is missing ${name}`);
  return value;
}
