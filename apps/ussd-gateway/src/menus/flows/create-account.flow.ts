import { normalizeEmail, normalizeFullName } from '../menu-rules';
import { end, go, MAIN_MENU, prompt, requireValue, stay } from './flow';
import type { CreateAccountScreen, Flow } from './flow-types';
import { confirmPinScreen, newPinScreen, NewPinScreens } from './new-pin';

/** Creating an account: name, e-mail (or skip), PIN, the PIN again; the session ends on the new Customer ID. */

const NEW_PIN: NewPinScreens = {
  enter: {
    screen: 'createPin',
    prompt: 'createPin.prompt',
    back: (state) => go(state, 'createEmail', { draft: { fullName: state.draft?.fullName } }),
  },
  confirm: { screen: 'createPinConfirm', prompt: 'createPinConfirm.prompt' },
  kept: (state) => ({ draft: { fullName: state.draft?.fullName, email: state.draft?.email } }),
  matched: (state, heldPin) => ({
    state,
    effect: {
      type: 'createAccount',
      fullName: requireValue(state.draft?.fullName, 'draft.fullName'),
      email: state.draft?.email ?? null,
      heldPin,
      language: state.language ?? null,
    },
  }),
  written(state, result) {
    // The session ends on the new Customer ID: it is what the subscriber must write down before anything else.
    if (result.type === 'created')
      return end(state, { kind: 'accountCreated', customerId: result.customerId });
    // As a log-in shed for load ends: the session closes on a text that says nothing was done and to dial again.
    if (result.type === 'hashBusy') return end(state, { kind: 'pinHashBusyCreate' });
    return undefined;
  },
};

export const createAccountFlow: Flow<CreateAccountScreen> = {
  createName: {
    fixed: true,
    input(state, input) {
      const fullName = normalizeFullName(input);
      return fullName
        ? go(state, 'createEmail', { draft: { fullName } })
        : stay(state, { kind: 'invalidName' });
    },
    back: (state) => go(state, 'accountMenu'),
    view: (_state, kit) => prompt(kit, 'createName.prompt'),
  },
  createEmail: {
    // `00` is the documented "skip" here.
    ownsMainMenu: true,
    fixed: true,
    input(state, input) {
      const fullName = requireValue(state.draft?.fullName, 'draft.fullName');
      if (input === MAIN_MENU) return go(state, 'createPin', { draft: { fullName, email: null } });
      const email = normalizeEmail(input);
      return email
        ? go(state, 'createPin', { draft: { fullName, email } })
        : stay(state, { kind: 'invalidEmail' });
    },
    back: (state) => go(state, 'createName', { draft: {} }),
    view: (_state, { t, nav }) => ({
      kind: 'menu',
      menus: [{ lines: [t('createEmail.prompt')], options: [nav.skip], nav: [nav.back, nav.exit] }],
    }),
  },
  createPin: newPinScreen(NEW_PIN),
  createPinConfirm: confirmPinScreen(NEW_PIN),
};
