import { normalizeNote, TICKET_CATEGORIES, TICKET_NOTE_MAX, TicketCategory } from '../../domain/order-rules';
import type { MessageKey } from '../languages';
import { end, go, MAIN_MENU, numbered, requireValue, stay } from './flow';
import type { Flow, ReportScreen } from './flow-types';

/** Reporting a stove problem: a category, a short note (or skip), then the ticket number. */

const CATEGORY_LABELS: Record<TicketCategory, MessageKey> = {
  wont_light: 'report.wontLight',
  smoke: 'report.smoke',
  broken_part: 'report.brokenPart',
  other: 'report.otherProblem',
};

export const reportFlow: Flow<ReportScreen> = {
  reportCategory: {
    fixed: true,
    input(state, input) {
      const category = /^[1-9]$/.test(input) ? TICKET_CATEGORIES[Number(input) - 1] : undefined;
      return category
        ? go(state, 'reportNote', { report: { category } })
        : stay(state, { kind: 'invalidChoice' });
    },
    back: (state) => go(state, 'accountHome'),
    view: (_state, { t, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [t('report.title')],
          options: numbered(TICKET_CATEGORIES.map((category) => t(CATEGORY_LABELS[category]))),
          nav: nav.deep,
        },
      ],
    }),
  },
  reportNote: {
    // `00` is the documented "skip" here.
    ownsMainMenu: true,
    fixed: true,
    input(state, input) {
      const note = input === MAIN_MENU ? null : normalizeNote(input);
      if (note === null && input !== MAIN_MENU) return stay(state, { kind: 'invalidNote' });
      const category = requireValue(state.report, 'report').category;
      return {
        state,
        effect: {
          type: 'createTicket',
          customerId: requireValue(state.auth, 'auth').customerId,
          category,
          note,
        },
      };
    },
    back: (state) => go(state, 'reportCategory'),
    result(state, result) {
      if (result.type !== 'ticketCreated') return undefined;
      if (result.ticketNumber === null) return end(state, { kind: 'accountMissing' });
      return end(state, { kind: 'ticketCreated', ticketNumber: result.ticketNumber });
    },
    view: (_state, { language, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [language.text('report.notePrompt', { max: TICKET_NOTE_MAX })],
          options: [nav.skip],
          nav: [nav.back, nav.exit],
        },
      ],
    }),
  },
};
