import { Language, Languages, MessageKey } from './languages';
import { DELIVERY_POINT_MAX, MAX_ORDER_QUANTITY, TICKET_NOTE_MAX } from '../domain/order-rules';
import type {
  Farewell,
  MachineContext,
  MenuState,
  Notice,
  PlainHint,
  ScreenView,
  ViewKit,
} from './flows/flow-types';
import { SCREEN_SPECS } from './flows/flows';
import { fitsOnScreen, paginate, screenText } from './screen-text';

export interface RenderedScreen {
  kind: 'CON' | 'END';
  /** What the handset shows, without the CON/END prefix; always fits on one screen. */
  text: string;
}

/** Limits named in the hints about them. */
const NOTICE_LIMITS: Partial<Record<Notice['kind'], number>> = {
  invalidQuantity: MAX_ORDER_QUANTITY,
  invalidDeliveryPoint: DELIVERY_POINT_MAX,
  invalidNote: TICKET_NOTE_MAX,
};

export function noticeText(notice: Notice, language: Language): string {
  if (notice.kind === 'wrongPin' || notice.kind === 'wrongCredentials')
    return language.plural(`notice.${notice.kind}`, notice.attemptsLeft);
  const max = NOTICE_LIMITS[notice.kind];
  return language.text(`notice.${notice.kind}`, max === undefined ? {} : { max });
}

export function farewellText(farewell: Farewell, language: Language): string {
  switch (farewell.kind) {
    case 'goodbye':
      return language.text('farewell.goodbye');
    case 'lockedNow':
      return language.plural('farewell.lockedNow', farewell.minutes, { minutes: farewell.minutes });
    case 'locked':
      return language.plural('farewell.locked', farewell.minutes, { minutes: farewell.minutes });
    case 'accountMissing':
      return language.text('farewell.accountMissing');
    case 'pinHashBusy':
      return language.text('farewell.pinHashBusy');
    case 'pinHashBusyCreate':
      return language.text('farewell.pinHashBusyCreate');
    case 'pinHashBusyChange':
      return language.text('farewell.pinHashBusyChange');
    case 'pinNotChanged':
      return language.text('farewell.pinNotChanged');
    case 'pinChangedElsewhere':
      return language.text('farewell.pinChangedElsewhere');
    case 'accountCreated':
      return language.text('farewell.accountCreated', { customerId: farewell.customerId });
    case 'orderPlaced':
      return language.text('farewell.orderPlaced', {
        orderNumber: farewell.orderNumber,
        total: language.amount(farewell.totalMinor, farewell.currency),
      });
    case 'ticketCreated':
      return language.text('farewell.ticketCreated', { ticketNumber: farewell.ticketNumber });
  }
}

/** The navigation lines of one language. */
function navigation(language: Language): ViewKit['nav'] {
  const exit = `*. ${language.text('nav.exit')}`;
  const back = `0. ${language.text('nav.back')}`;
  const main = `00. ${language.text('nav.mainMenu')}`;
  return {
    exit,
    back,
    main,
    more: `98. ${language.text('nav.more')}`,
    skip: `00. ${language.text('nav.skip')}`,
    deep: [back, main, exit],
  };
}

/** Hints that carry a value of their own (tries left) are rendered each time. */
const VALUED_NOTICES = new Set<Notice['kind']>(['wrongPin', 'wrongCredentials']);
const MAX_FIXED_SCREENS = 10_000;

function fixedScreenKey(state: MenuState): string | undefined {
  if (state.screen === 'ended') {
    const farewell = state.farewell?.kind ?? 'goodbye';
    return farewell === 'goodbye' ? `${state.language ?? ''}|ended|goodbye` : undefined;
  }
  if (
    !SCREEN_SPECS[state.screen].fixed ||
    (state.notice !== undefined && VALUED_NOTICES.has(state.notice.kind))
  )
    return undefined;
  return `${state.language ?? ''}|${state.screen}|${state.notice?.kind ?? ''}|${state.topic ?? ''}|${state.page ?? 0}`;
}

/**
 * The one place that turns states into screens, in the session's language. Navigation lines are part of the frame
 * measured before any content is placed, so they can never be the part that falls off a full screen; long bodies are
 * paged (`98`).
 */
export class MenuRenderer implements MachineContext {
  /** Pages of a body depend only on the body, so they are cut once (account details vary, hence the bound). */
  private readonly pageCache = new Map<string, string[]>();
  private readonly kits = new Map<string, ViewKit>();
  readonly languageCodes: readonly string[];

  constructor(private readonly languages: Languages) {
    this.languageCodes = languages.codes;
  }

  /**
   * Screens that are the same for every session in a language (no name, number, catalogue or order on them): cut,
   * measured and folded to GSM-7 once, then served as they are. Bounded by languages × screens × notices × pages.
   */
  private readonly fixedScreens = new Map<string, RenderedScreen>();

  render(state: MenuState): RenderedScreen {
    const key = fixedScreenKey(state);
    if (key === undefined) return this.renderScreen(state);
    let screen = this.fixedScreens.get(key);
    if (screen === undefined) {
      screen = this.renderScreen(state);
      if (this.fixedScreens.size < MAX_FIXED_SCREENS) this.fixedScreens.set(key, screen);
    }
    return screen;
  }

  pageCount(state: MenuState): number {
    const { view, language } = this.viewOf(state);
    switch (view?.kind) {
      case 'text':
        return this.textPages(view, language).length;
      case 'list':
        return this.listPages(view, language).length;
      case 'greeted':
        return this.greetedLayout(view, language).pages.length;
      case 'menu':
      case undefined:
        return 1;
    }
  }

  private kit(language: Language): ViewKit {
    let kit = this.kits.get(language.code);
    if (kit === undefined) {
      kit = {
        language,
        t: (key: MessageKey) => language.text(key),
        nav: navigation(language),
        languages: this.languageCodes.map((code) => this.languages.get(code)),
      };
      this.kits.set(language.code, kit);
    }
    return kit;
  }

  private viewOf(state: MenuState): { view: ScreenView | undefined; language: Language } {
    const language = this.languages.get(state.language);
    if (state.screen === 'ended') return { view: undefined, language };
    return { view: SCREEN_SPECS[state.screen].view(state, this.kit(language)), language };
  }

  private renderScreen(state: MenuState): RenderedScreen {
    const { view, language } = this.viewOf(state);
    if (view === undefined)
      return { kind: 'END', text: screenText(farewellText(state.farewell ?? { kind: 'goodbye' }, language)) };
    const notice = state.notice ? noticeText(state.notice, language) : undefined;
    const text = screenText(this.screenOf(view, language, notice, state.page ?? 0));
    if (!fitsOnScreen(text)) {
      // Only reachable with a renderer bug or a content file too long; the screen walker test proves every reachable
      // screen of every shipped language fits.
      throw new Error(`screen ${state.screen} does not fit on a handset in ${language.code}: ${text}`);
    }
    return { kind: 'CON', text };
  }

  private screenOf(view: ScreenView, language: Language, notice: string | undefined, page: number): string {
    switch (view.kind) {
      case 'menu': {
        const texts = view.menus.map((menu) =>
          [...(notice ? [notice] : []), ...menu.lines, ...menu.options, ...menu.nav].join('\n'),
        );
        return texts.find((text) => fitsOnScreen(screenText(text))) ?? texts[texts.length - 1]!;
      }
      case 'text':
        return this.textPage(view, language, notice, page);
      case 'list':
        return this.listPage(view, language, notice, page);
      case 'greeted':
        return this.greetedPage(view, language, notice, page);
    }
  }

  /** The widest of the hints a screen can show: pages are cut with room for it, so a hint never moves an option. */
  private widestHint(hints: readonly PlainHint[], language: Language, beside = ''): string {
    return hints
      .map((kind) => noticeText({ kind } as Notice, language))
      .reduce((a, b) => (b.length > a.length ? b : a), beside);
  }

  /**
   * Options cut into screens (`98` for the next), numbered across pages so that an option keeps its number whichever
   * page shows it. A catalogue is a database table: it may outgrow a screen, in UCS-2 at once.
   */
  private listPages(view: Extract<ScreenView, { kind: 'list' }>, language: Language): string[][] {
    const menu = view.menu;
    const nav = navigation(language);
    const header = [this.widestHint(view.hints, language), ...menu.lines];
    const fits = (options: string[], more = [nav.more]): boolean =>
      fitsOnScreen(screenText([...header, ...options, ...more, ...menu.nav].join('\n')));
    if (fits(menu.options, [])) return [menu.options];
    const pages: string[][] = [];
    for (const option of menu.options) {
      const current = pages[pages.length - 1];
      if (current && fits([...current, option])) current.push(option);
      else pages.push([option]);
    }
    return pages.length > 0 ? pages : [[]];
  }

  private listPage(
    view: Extract<ScreenView, { kind: 'list' }>,
    language: Language,
    notice: string | undefined,
    page: number,
  ): string {
    const pages = this.listPages(view, language);
    const index = Math.min(page, pages.length - 1);
    const more = index < pages.length - 1 ? [navigation(language).more] : [];
    return [
      ...(notice ? [notice] : []),
      ...view.menu.lines,
      ...pages[index]!,
      ...more,
      ...view.menu.nav,
    ].join('\n');
  }

  /**
   * All options on one screen under the best greeting that fits; otherwise paged (`98`) with the greeting on the
   * first page only, as in UCS-2 (80 characters), where a name such as `Александра` leaves room for two options.
   * Pages are cut with room for the widest hint (under the plain greeting on the first page).
   */
  private greetedLayout(
    view: Extract<ScreenView, { kind: 'greeted' }>,
    language: Language,
  ): { greetings: string[]; pages: string[][] } {
    const { options, plain } = view;
    const more = navigation(language).more;
    const hint = this.widestHint(view.hints, language);
    const fits = (lines: string[]): boolean => fitsOnScreen(screenText([...lines, ...view.nav].join('\n')));
    const firstFits = (greeting: string, page: string[], next: string[]): boolean =>
      fits([greeting, ...page, ...next]) && fits([hint, plain, ...page, ...next]);
    for (const greeting of view.greetings) {
      if (firstFits(greeting, options, [])) return { greetings: [greeting, plain], pages: [options] };
    }
    for (const greeting of [...view.greetings, plain]) {
      if (!firstFits(greeting, options.slice(0, 1), [more])) continue;
      const pages: string[][] = [];
      for (const option of options) {
        const current = pages[pages.length - 1];
        const candidate = [...(current ?? []), option];
        if (
          current &&
          (pages.length === 1 ? firstFits(greeting, candidate, [more]) : fits([hint, ...candidate, more]))
        )
          current.push(option);
        else pages.push([option]);
      }
      return { greetings: [greeting, plain], pages };
    }
    throw new Error(`a greeted menu does not fit on a handset in ${language.code}`);
  }

  private greetedPage(
    view: Extract<ScreenView, { kind: 'greeted' }>,
    language: Language,
    notice: string | undefined,
    page: number,
  ): string {
    const { greetings, pages } = this.greetedLayout(view, language);
    const index = Math.min(page, pages.length - 1);
    const more = index < pages.length - 1 ? [navigation(language).more] : [];
    const screen = (greeting: string[]): string =>
      [...(notice ? [notice] : []), ...greeting, ...pages[index]!, ...more, ...view.nav].join('\n');
    if (index > 0) return screen([]);
    const texts = greetings.map((greeting) => screen([greeting]));
    return texts.find((text) => fitsOnScreen(screenText(text))) ?? texts[texts.length - 1]!;
  }

  private frame(language: Language, header: string, page: string, isLast: boolean): string {
    const nav = navigation(language);
    return [header, page, ...(isLast ? [] : [nav.more]), ...nav.deep].join('\n');
  }

  private textPages({ title, body }: Extract<ScreenView, { kind: 'text' }>, language: Language): string[] {
    const key = `${language.code}\u0000${title}\u0000${body}`;
    const cached = this.pageCache.get(key);
    if (cached) return cached;
    // Pages are cut beside the title: reserving room for the longest hint left a French UCS-2 page three letters.
    const pages = paginate(body, (page, _index, isLast) => this.frame(language, title, page, isLast));
    if (this.pageCache.size >= 1000) this.pageCache.clear();
    this.pageCache.set(key, pages);
    return pages;
  }

  private textPage(
    view: Extract<ScreenView, { kind: 'text' }>,
    language: Language,
    notice: string | undefined,
    page: number,
  ): string {
    const pages = this.textPages(view, language);
    const index = Math.min(page, pages.length - 1);
    const isLast = index === pages.length - 1;
    const hinted = notice === undefined ? undefined : this.frame(language, notice, pages[index]!, isLast);
    // The page's lines come first: a hint takes the title's place only where it fits beside them.
    if (hinted !== undefined && fitsOnScreen(screenText(hinted))) return hinted;
    return this.frame(language, view.title, pages[index]!, isLast);
  }
}
