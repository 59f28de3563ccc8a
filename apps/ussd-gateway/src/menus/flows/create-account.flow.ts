import { isPinShaped, isTrivialPin, normalizeEmail, normalizeFullName } from '../menu-rules';
import { end, Flow, go, heldPinOf, MAIN_MENU, prompt, requireValue, stay } from './flow';

/** Creating an account: name, e-mail (or skip), PIN, the PIN again; the session ends on the new Customer ID. */

export type CreateAccountScreen = 'createName' | 'createEmail' | 'createPin' | 'createPinConfirm';

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
  createPin: {
    fixed: true,
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      if (isTrivialPin(input)) return stay(state, { kind: 'trivialPin' });
      return { state, effect: { type: 'holdPin', pin: input } };
    },
    back: (state) => go(state, 'createEmail', { draft: { fullName: state.draft?.fullName } }),
    result(state, result) {
      if (result.type !== 'held') return undefined;
      return go(state, 'createPinConfirm', { draft: { ...state.draft, heldPin: result.heldPin } });
    },
    view: (_state, kit) => prompt(kit, 'createPin.prompt'),
  },
  createPinConfirm: {
    fixed: true,
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'matchPin', pin: input, heldPin: heldPinOf(state) } };
    },
    back: (state) =>
      go(state, 'createPin', { draft: { fullName: state.draft?.fullName, email: state.draft?.email } }),
    result(state, result) {
      if (result.type === 'matched') {
        const heldPin = heldPinOf(state);
        if (!result.match) {
          return go(state, 'createPin', {
            draft: { fullName: state.draft?.fullName, email: state.draft?.email },
            notice: { kind: 'pinMismatch' },
          });
        }
        const fullName = requireValue(state.draft?.fullName, 'draft.fullName');
        return {
          state,
          effect: {
            type: 'createAccount',
            fullName,
            email: state.draft?.email ?? null,
            heldPin,
            language: state.language ?? null,
          },
        };
      }
      // The session ends on the new Customer ID: it is what the subscriber must write down before anything else.
      if (result.type === 'created')
        return end(state, { kind: 'accountCreated', customerId: result.customerId });
      // As a log-in shed for load ends: the session closes on a text that says nothing was done and to dial again.
      if (result.type === 'hashBusy') return end(state, { kind: 'pinHashBusyCreate' });
      return undefined;
    },
    view: (_state, kit) => prompt(kit, 'createPinConfirm.prompt'),
  },
};
