import { isPinShaped, normalizeCustomerId } from '../menu-rules';
import { afterVerify, go, lasting, numbered, prompt, requireValue, stay } from './flow';
import type { AccountMenuScreen, Flow } from './flow-types';

/** The account menu of a subscriber not signed in, and logging in with a Customer ID and PIN. */

export const accountMenuFlow: Flow<AccountMenuScreen> = {
  accountMenu: {
    fixed: true,
    input(state, input) {
      if (input === '1') return go(state, 'loginCustomerId');
      if (input === '2') return go(state, 'createName', { draft: {} });
      return stay(state, { kind: 'invalidChoice' });
    },
    back: (state) => go(state, 'preMenu'),
    view: (_state, { t, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [t('accountMenu.title')],
          options: numbered([t('accountMenu.login'), t('accountMenu.create')]),
          nav: [nav.back, nav.exit],
        },
      ],
    }),
  },
  loginCustomerId: {
    fixed: true,
    input(state, input) {
      const customerId = normalizeCustomerId(input);
      return customerId
        ? go(state, 'loginPin', { loginCustomerId: customerId })
        : stay(state, { kind: 'invalidCustomerId' });
    },
    back: (state) => go(state, 'accountMenu'),
    view: (_state, kit) => prompt(kit, 'loginCustomerId.prompt'),
  },
  loginPin: {
    input(state, input) {
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return {
        state,
        effect: {
          type: 'verifyPin',
          customerId: requireValue(state.loginCustomerId, 'loginCustomerId'),
          pin: input,
        },
      };
    },
    back: (state) => go(state, 'loginCustomerId'),
    result(state, result) {
      if (result.type !== 'verified') return undefined;
      // The account's language, once it has chosen one, wins over the phone's: a shared handset shows each member theirs.
      return afterVerify(state, result.outcome, (outcome) => ({
        state: {
          screen: 'accountHome',
          ...lasting({ language: outcome.language ?? state.language }),
          auth: {
            customerId: requireValue(state.loginCustomerId, 'loginCustomerId'),
            firstName: outcome.firstName,
            pinVersion: outcome.pinVersion,
          },
        },
      }));
    },
    view: (state, { language, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [language.text('loginPin.prompt', { customerId: state.loginCustomerId ?? '' })],
          options: [],
          nav: nav.deep,
        },
      ],
    }),
  },
};
