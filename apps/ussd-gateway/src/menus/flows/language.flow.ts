import { go, numbered, stay } from './flow';
import type { Flow, LanguageScreen } from './flow-types';

/** Choosing the language every screen is shown in. */

export const languageFlow: Flow<LanguageScreen> = {
  language: {
    fixed: true,
    input(state, input, context) {
      const language = /^[1-9]$/.test(input) ? context.languageCodes[Number(input) - 1] : undefined;
      if (!language) return stay(state, { kind: 'invalidChoice' });
      return { state, effect: { type: 'setLanguage', language, customerId: state.auth?.customerId ?? null } };
    },
    back: (state) => go(state, 'preMenu'),
    result(state, result) {
      if (result.type !== 'languageSet') return undefined;
      return go({ ...state, language: result.language }, 'preMenu', { notice: { kind: 'languageChanged' } });
    },
    view(_state, { t, nav, languages }) {
      // Each language by its own name; by its name in Latin letters when one of them would make the list UCS-2.
      const list = (key: 'language.name' | 'language.latinName') => ({
        lines: [t('language.title')],
        options: numbered(languages.map((language) => language.text(key))),
        nav: [nav.back, nav.exit],
      });
      return { kind: 'menu', menus: [list('language.name'), list('language.latinName')] };
    },
  },
};
