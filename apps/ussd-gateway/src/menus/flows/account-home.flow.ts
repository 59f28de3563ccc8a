import { isPinShaped } from '../menu-rules';
import { enterOrder, showOrders } from './order.flow';
import {
  afterVerify,
  end,
  go,
  lasting,
  nextPage,
  numbered,
  previousPage,
  prompt,
  requireValue,
  stay,
} from './flow';
import type { AccountHomeScreen, Flow } from './flow-types';
import { confirmPinScreen, newPinScreen, NewPinScreens } from './new-pin';

/** The signed-in menu, the account's details, changing the PIN and logging out. */

/** 1–3 kept where they were before ordering existed: subscribers and scripts know them by number. */
const HOME_OPTIONS = [
  'accountHome.details',
  'accountHome.changePin',
  'accountHome.logOut',
  'accountHome.orderFuel',
  'accountHome.myOrders',
  'accountHome.reportProblem',
] as const;

/** `Ọlá` → `Ola`: accents off, so a name does not force the whole screen into UCS-2 (80 characters). */
function withoutAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

const NEW_PIN: NewPinScreens = {
  enter: { screen: 'changePinNew', prompt: 'changePinNew.prompt', back: (state) => go(state, 'accountHome') },
  confirm: { screen: 'changePinConfirm', prompt: 'changePinConfirm.prompt' },
  kept: () => ({}),
  matched(state, heldPin) {
    const auth = requireValue(state.auth, 'auth');
    return {
      state,
      effect: {
        type: 'replacePin',
        customerId: auth.customerId,
        heldPin,
        expectedPinVersion: auth.pinVersion ?? null,
      },
    };
  },
  written(state, result) {
    if (result.type === 'replaced') {
      if (result.pinVersion === null) return end(state, { kind: 'pinNotChanged' });
      const auth = requireValue(state.auth, 'auth');
      return go({ ...state, auth: { ...auth, pinVersion: result.pinVersion } }, 'accountHome', {
        notice: { kind: 'pinChanged' },
      });
    }
    // As a log-in shed for load ends: the session closes on a text that says nothing was done and to dial again.
    if (result.type === 'hashBusy') return end(state, { kind: 'pinHashBusyChange' });
    return undefined;
  },
};

export const accountHomeFlow: Flow<AccountHomeScreen> = {
  accountHome: {
    input(state, input, context) {
      const auth = requireValue(state.auth, 'auth');
      const paged = nextPage(state, input, context);
      if (paged) return paged;
      if (input === '1') return { state, effect: { type: 'loadAccount', customerId: auth.customerId } };
      if (input === '2') return go(state, 'changePinOld');
      if (input === '3')
        return {
          state: {
            screen: 'preMenu',
            ...lasting({ language: state.language }),
            notice: { kind: 'loggedOut' },
          },
        };
      if (input === '4') return { state, effect: { type: 'loadCatalogue', customerId: auth.customerId } };
      if (input === '5') return { state, effect: { type: 'loadOrders', customerId: auth.customerId } };
      if (input === '6') return go(state, 'reportCategory');
      return stay(state, { kind: 'invalidChoice' });
    },
    back: (state) => previousPage(state, () => go(state, 'preMenu')),
    result(state, result) {
      if (result.type === 'catalogueLoaded') return enterOrder(state, result);
      if (result.type === 'ordersLoaded') return showOrders(state, result);
      if (result.type !== 'loaded') return undefined;
      if (result.account === null) return end(state, { kind: 'accountMissing' });
      return go(state, 'accountDetails', { details: result.account, page: 0 });
    },
    view(state, { language, t, nav }) {
      const name = state.auth?.firstName ?? '';
      return {
        kind: 'greeted',
        greetings: [
          ...new Set([
            language.text('accountHome.welcome', { name }),
            language.text('accountHome.welcome', { name: withoutAccents(name) }),
          ]),
        ],
        plain: t('accountHome.welcomePlain'),
        options: numbered(HOME_OPTIONS.map((key) => t(key))),
        nav: [nav.back, nav.exit],
        hints: ['invalidChoice', 'pinChanged', 'noProducts'],
      };
    },
  },
  accountDetails: {
    input: (state, input, context) =>
      nextPage(state, input, context) ?? stay(state, { kind: 'invalidChoice' }),
    back: (state) => previousPage(state, () => go(state, 'accountHome')),
    view(state, { language }) {
      const details = state.details;
      const body = details
        ? [
            language.text('accountDetails.customerId', { value: details.customerId }),
            language.text('accountDetails.name', { value: details.fullName }),
            language.text('accountDetails.email', {
              value: details.email ?? language.text('accountDetails.noEmail'),
            }),
            language.text('accountDetails.phone', { value: details.phoneNumber }),
          ].join('\n')
        : '';
      return { kind: 'text', title: language.text('accountDetails.title'), body };
    },
  },
  changePinOld: {
    fixed: true,
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return {
        state,
        effect: { type: 'verifyPin', customerId: requireValue(state.auth, 'auth').customerId, pin: input },
      };
    },
    back: (state) => go(state, 'accountHome'),
    result(state, result) {
      if (result.type !== 'verified') return undefined;
      // The version the new PIN will be written over: a change made elsewhere from now on makes this one stale.
      return afterVerify(state, result.outcome, (outcome) => {
        const auth = requireValue(state.auth, 'auth');
        return go({ ...state, auth: { ...auth, pinVersion: outcome.pinVersion } }, 'changePinNew');
      });
    },
    view: (_state, kit) => prompt(kit, 'changePinOld.prompt'),
  },
  changePinNew: newPinScreen(NEW_PIN),
  changePinConfirm: confirmPinScreen(NEW_PIN),
};
