import { go, nextPage, numbered, previousPage, stay } from './flow';
import type { Flow, PreMenuScreen } from './flow-types';

/** The main menu and Know More: what anyone who dials sees, signed in or not. */

const TOPIC_TITLES = {
  about: 'knowMore.about',
  pricing: 'knowMore.pricing',
  delivery: 'knowMore.delivery',
} as const;

export const preMenuFlow: Flow<PreMenuScreen> = {
  preMenu: {
    fixed: true,
    input(state, input) {
      if (input === '1') return go(state, 'knowMore');
      if (input === '2') return go(state, state.auth ? 'accountHome' : 'accountMenu');
      if (input === '3') return go(state, 'language');
      return stay(state, { kind: 'invalidChoice' });
    },
    back: (state) => go(state, 'preMenu'),
    view: (_state, { t, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [t('preMenu.title')],
          options: numbered([t('preMenu.knowMore'), t('preMenu.account'), t('preMenu.language')]),
          nav: [nav.exit],
        },
      ],
    }),
  },
  knowMore: {
    fixed: true,
    input(state, input) {
      const topic = ({ '1': 'about', '2': 'pricing', '3': 'delivery' } as const)[input];
      return topic ? go(state, 'info', { topic, page: 0 }) : stay(state, { kind: 'invalidChoice' });
    },
    back: (state) => go(state, 'preMenu'),
    view: (_state, { t, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [t('knowMore.title')],
          options: numbered([t('knowMore.about'), t('knowMore.pricing'), t('knowMore.delivery')]),
          nav: [nav.back, nav.exit],
        },
      ],
    }),
  },
  info: {
    fixed: true,
    input: (state, input, context) =>
      nextPage(state, input, context) ?? stay(state, { kind: 'invalidChoice' }),
    back: (state) => previousPage(state, () => go(state, 'knowMore')),
    view(state, { language }) {
      const topic = state.topic ?? 'about';
      return {
        kind: 'text',
        title: language.text(TOPIC_TITLES[topic]),
        body: language.text(`info.${topic}`),
      };
    },
  },
};
