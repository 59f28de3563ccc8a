import { Language, Languages, MessageKey } from './languages';
import { DELIVERY_POINT_MAX, MAX_ORDER_QUANTITY, TICKET_CATEGORIES, TICKET_NOTE_MAX, TicketCategory } from '../orders/order-rules';
import { Farewell, MachineContext, MenuState, Notice } from './menu-machine';
import { fitsOnScreen, paginate, screenText } from './screen-text';

export interface RenderedScreen {
  kind: 'CON' | 'END';
  /** What the handset shows, without the CON/END prefix; always fits on one screen. */
  text: string;
}

const TOPIC_TITLES = { about: 'knowMore.about', pricing: 'knowMore.pricing', delivery: 'knowMore.delivery' } as const;

const CATEGORY_LABELS: Record<TicketCategory, MessageKey> = {
  wont_light: 'report.wontLight',
  smoke: 'report.smoke',
  broken_part: 'report.brokenPart',
  other: 'report.otherProblem',
};

/** Limits named in the hints about them. */
const NOTICE_LIMITS: Partial<Record<Notice['kind'], number>> = {
  invalidQuantity: MAX_ORDER_QUANTITY,
  invalidDeliveryPoint: DELIVERY_POINT_MAX,
  invalidNote: TICKET_NOTE_MAX,
};

export function noticeText(notice: Notice, language: Language): string {
  if (notice.kind === 'wrongPin' || notice.kind === 'wrongCredentials') return language.plural(`notice.${notice.kind}`, notice.attemptsLeft);
  const max = NOTICE_LIMITS[notice.kind];
  return language.text(`notice.${notice.kind}`, max === undefined ? {} : { max });
}

/** `Pellets 10 kg`: the kind by its content key (`product.<kind>`; the kind itself when a language has none). */
function productName(language: Language, kind: string, sizeKg: number): string {
  return language.text('product.label', { kind: language.lookup(`product.${kind}`) ?? kind, size: sizeKg });
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
      return language.text('farewell.orderPlaced', { orderNumber: farewell.orderNumber, total: language.amount(farewell.totalMinor, farewell.currency) });
    case 'ticketCreated':
      return language.text('farewell.ticketCreated', { ticketNumber: farewell.ticketNumber });
  }
}

interface Menu {
  lines: string[];
  options: string[];
  nav: string[];
}

/** A screen's menu, or alternatives from best to plainest when it carries text of unknown length (a name). */
type Menus = Menu | Menu[];

/** `Ọlá` → `Ola`: accents off, so a name does not force the whole screen into UCS-2 (80 characters). */
function withoutAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

/** The navigation lines of one language. */
function navigation(language: Language): { exit: string; back: string; main: string; more: string; deep: string[] } {
  const exit = `*. ${language.text('nav.exit')}`;
  const back = `0. ${language.text('nav.back')}`;
  const main = `00. ${language.text('nav.mainMenu')}`;
  return { exit, back, main, more: `98. ${language.text('nav.more')}`, deep: [back, main, exit] };
}

/** Screens whose text depends only on the language, the hint, and for information texts the topic and page. */
const FIXED_SCREENS = new Set<MenuState['screen']>([
  'preMenu',
  'knowMore',
  'info',
  'accountMenu',
  'language',
  'loginCustomerId',
  'createName',
  'createEmail',
  'createPin',
  'createPinConfirm',
  'changePinOld',
  'changePinNew',
  'changePinConfirm',
  'reportCategory',
  'reportNote',
]);
/** Hints that carry a value of their own (tries left) are rendered each time. */
const VALUED_NOTICES = new Set<Notice['kind']>(['wrongPin', 'wrongCredentials']);
const MAX_FIXED_SCREENS = 10_000;

function fixedScreenKey(state: MenuState): string | undefined {
  if (state.screen === 'ended') {
    const farewell = state.farewell?.kind ?? 'goodbye';
    return farewell === 'goodbye' ? `${state.language ?? ''}|ended|goodbye` : undefined;
  }
  if (!FIXED_SCREENS.has(state.screen) || (state.notice !== undefined && VALUED_NOTICES.has(state.notice.kind))) return undefined;
  return `${state.language ?? ''}|${state.screen}|${state.notice?.kind ?? ''}|${state.topic ?? ''}|${state.page ?? 0}`;
}

/** 1–3 kept where they were before ordering existed: subscribers and scripts know them by number. */
const HOME_OPTIONS = [
  'accountHome.details',
  'accountHome.changePin',
  'accountHome.logOut',
  'accountHome.orderFuel',
  'accountHome.myOrders',
  'accountHome.reportProblem',
] as const satisfies readonly MessageKey[];
/** The hints the signed-in menu can show above itself. */
const HOME_HINTS = ['invalidChoice', 'pinChanged', 'noProducts'] as const satisfies ReadonlyArray<Notice['kind']>;

const numbered = (labels: string[]): string[] => labels.map((label, index) => `${index + 1}. ${label}`);

/**
 * The one place that turns states into screens, in the session's language. Navigation lines are part of the frame
 * measured before any content is placed, so they can never be the part that falls off a full screen; long bodies are
 * paged (`98`).
 */
export class MenuRenderer implements MachineContext {
  /** Pages of a body depend only on the body, so they are cut once (account details vary, hence the bound). */
  private readonly pageCache = new Map<string, string[]>();
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

  private renderScreen(state: MenuState): RenderedScreen {
    const language = this.languages.get(state.language);
    if (state.screen === 'ended') {
      return { kind: 'END', text: screenText(farewellText(state.farewell ?? { kind: 'goodbye' }, language)) };
    }
    const text = screenText(
      state.screen === 'orderProduct'
        ? this.productPage(state, language)
        : state.screen === 'accountHome'
          ? this.homePage(state, language)
          : this.isPaged(state)
            ? this.pagedText(state, language)
            : this.menuText(state, language),
    );
    if (!fitsOnScreen(text)) {
      // Only reachable with a renderer bug or a content file too long; the screen walker test proves every reachable
      // screen of every shipped language fits.
      throw new Error(`screen ${state.screen} does not fit on a handset in ${language.code}: ${text}`);
    }
    return { kind: 'CON', text };
  }

  pageCount(state: MenuState): number {
    const language = this.languages.get(state.language);
    if (state.screen === 'orderProduct') return this.productPages(state, language).length;
    if (state.screen === 'accountHome') return this.homeLayout(state, language).pages.length;
    return this.isPaged(state) ? this.pages(state, language).length : 1;
  }

  /**
   * The catalogue's options cut into screens (`98` for the next), numbered across pages so that a product keeps its
   * number whichever page shows it. A catalogue is a database table: it may outgrow a screen, in UCS-2 at once.
   */
  private productPages(state: MenuState, language: Language): string[][] {
    const menu = this.menuOf(state, language) as Menu;
    const nav = navigation(language);
    // Room is kept for the one hint this screen shows above its title.
    const header = [noticeText({ kind: 'invalidChoice' }, language), ...menu.lines];
    const fits = (options: string[], more = [nav.more]): boolean => fitsOnScreen(screenText([...header, ...options, ...more, ...menu.nav].join('\n')));
    if (fits(menu.options, [])) return [menu.options];
    const pages: string[][] = [];
    for (const option of menu.options) {
      const current = pages[pages.length - 1];
      if (current && fits([...current, option])) current.push(option);
      else pages.push([option]);
    }
    return pages.length > 0 ? pages : [[]];
  }

  private productPage(state: MenuState, language: Language): string {
    const pages = this.productPages(state, language);
    const index = Math.min(state.page ?? 0, pages.length - 1);
    const menu = this.menuOf(state, language) as Menu;
    const notice = state.notice ? [noticeText(state.notice, language)] : [];
    const more = index < pages.length - 1 ? [navigation(language).more] : [];
    return [...notice, ...menu.lines, ...pages[index]!, ...more, ...menu.nav].join('\n');
  }

  /**
   * The signed-in menu: all options on one screen under the greeting with the name (or the name without its accents)
   * when that fits; otherwise the options are paged (`98`) and the greeting with the name opens the first page, as in
   * UCS-2 (80 characters), where a name such as `Александра` leaves room for two options. Pages are cut with room for
   * the widest hint this screen shows (under the plain greeting on the first page), so a hint never moves an option
   * to another page; the options keep their numbers across pages.
   */
  private homeLayout(state: MenuState, language: Language): { greetings: string[]; pages: string[][] } {
    const name = state.auth?.firstName ?? '';
    const nav = navigation(language);
    const options = numbered(HOME_OPTIONS.map((key) => language.text(key)));
    const plain = language.text('accountHome.welcomePlain');
    const named = [...new Set([language.text('accountHome.welcome', { name }), language.text('accountHome.welcome', { name: withoutAccents(name) })])];
    const hint = HOME_HINTS.map((kind) => noticeText({ kind }, language)).reduce((a, b) => (b.length > a.length ? b : a));
    const fits = (lines: string[]): boolean => fitsOnScreen(screenText(lines.join('\n')));
    const firstFits = (greeting: string, page: string[], more: string[]): boolean =>
      fits([greeting, ...page, ...more, nav.back, nav.exit]) && fits([hint, plain, ...page, ...more, nav.back, nav.exit]);
    for (const greeting of named) {
      if (firstFits(greeting, options, [])) return { greetings: [greeting, plain], pages: [options] };
    }
    for (const greeting of [...named, plain]) {
      if (!firstFits(greeting, options.slice(0, 1), [nav.more])) continue;
      const pages: string[][] = [];
      for (const option of options) {
        const current = pages[pages.length - 1];
        const candidate = [...(current ?? []), option];
        if (current && (pages.length === 1 ? firstFits(greeting, candidate, [nav.more]) : fits([hint, ...candidate, nav.more, nav.back, nav.exit]))) current.push(option);
        else pages.push([option]);
      }
      return { greetings: [greeting, plain], pages };
    }
    throw new Error(`the signed-in menu does not fit on a handset in ${language.code}`);
  }

  private homePage(state: MenuState, language: Language): string {
    const { greetings, pages } = this.homeLayout(state, language);
    const index = Math.min(state.page ?? 0, pages.length - 1);
    const nav = navigation(language);
    const notice = state.notice ? [noticeText(state.notice, language)] : [];
    const more = index < pages.length - 1 ? [nav.more] : [];
    const screen = (greeting: string[]): string => [...notice, ...greeting, ...pages[index]!, ...more, nav.back, nav.exit].join('\n');
    if (index > 0) return screen([]);
    const texts = greetings.map((greeting) => screen([greeting]));
    return texts.find((text) => fitsOnScreen(screenText(text))) ?? texts[texts.length - 1]!;
  }

  private isPaged(state: MenuState): boolean {
    return state.screen === 'info' || state.screen === 'accountDetails' || state.screen === 'myOrders';
  }

  private menuOf(state: MenuState, language: Language): Menus {
    const t = (key: MessageKey): string => language.text(key);
    const nav = navigation(language);
    const prompt = (key: MessageKey): Menu => ({ lines: [t(key)], options: [], nav: nav.deep });
    switch (state.screen) {
      case 'info':
      case 'accountDetails':
      case 'myOrders':
      case 'ended':
        throw new Error(`${state.screen} is not a menu screen`);
      case 'preMenu':
        return {
          lines: [t('preMenu.title')],
          options: numbered([t('preMenu.knowMore'), t('preMenu.account'), t('preMenu.language')]),
          nav: [nav.exit],
        };
      case 'knowMore':
        return {
          lines: [t('knowMore.title')],
          options: numbered([t('knowMore.about'), t('knowMore.pricing'), t('knowMore.delivery')]),
          nav: [nav.back, nav.exit],
        };
      case 'accountMenu':
        return { lines: [t('accountMenu.title')], options: numbered([t('accountMenu.login'), t('accountMenu.create')]), nav: [nav.back, nav.exit] };
      case 'language': {
        // Each language by its own name; by its name in Latin letters when one of them would make the list UCS-2.
        const list = (key: 'language.name' | 'language.latinName'): Menu => ({
          lines: [t('language.title')],
          options: numbered(this.languageCodes.map((code) => this.languages.get(code).text(key))),
          nav: [nav.back, nav.exit],
        });
        return [list('language.name'), list('language.latinName')];
      }
      case 'loginCustomerId':
        return prompt('loginCustomerId.prompt');
      case 'loginPin':
        return { lines: [language.text('loginPin.prompt', { customerId: state.loginCustomerId ?? '' })], options: [], nav: nav.deep };
      case 'createName':
        return prompt('createName.prompt');
      case 'createEmail':
        return { lines: [t('createEmail.prompt')], options: [`00. ${t('nav.skip')}`], nav: [nav.back, nav.exit] };
      case 'createPin':
        return prompt('createPin.prompt');
      case 'createPinConfirm':
        return prompt('createPinConfirm.prompt');
      case 'accountHome':
        throw new Error(`${state.screen} is laid out by homeLayout`);
      case 'changePinOld':
        return prompt('changePinOld.prompt');
      case 'changePinNew':
        return prompt('changePinNew.prompt');
      case 'changePinConfirm':
        return prompt('changePinConfirm.prompt');
      case 'orderProduct':
        return {
          lines: [t('order.title')],
          options: numbered(
            (state.catalogue ?? []).map((product) =>
              language.text('order.product', {
                kind: language.lookup(`product.${product.kind}`) ?? product.kind,
                size: product.sizeKg,
                price: language.amount(product.priceMinor, product.currency),
              }),
            ),
          ),
          nav: nav.deep,
        };
      case 'orderQuantity':
        return { lines: [this.chosenProduct(state, language), language.text('order.quantityPrompt', { max: MAX_ORDER_QUANTITY })], options: [], nav: nav.deep };
      case 'orderDelivery': {
        const last = state.order?.lastDeliveryPoint;
        return { lines: [t('order.deliveryPrompt')], options: last ? [`1. ${last}`] : [], nav: nav.deep };
      }
      case 'orderConfirm': {
        const order = state.order;
        const product = state.catalogue?.find((item) => item.code === order?.productCode);
        const quantity = order?.quantity ?? 0;
        const total = product ? language.amount(product.priceMinor * quantity, product.currency) : '';
        const values = { quantity, product: this.chosenProduct(state, language), total, point: order?.deliveryPoint ?? '' };
        // Without the delivery point (the subscriber just typed it) when the whole does not fit, as in UCS-2.
        return (['order.confirm', 'order.confirmShort'] as const).map((key) => ({ lines: [language.text(key, values)], options: [], nav: nav.deep }));
      }
      case 'reportCategory':
        return { lines: [t('report.title')], options: numbered(TICKET_CATEGORIES.map((category) => t(CATEGORY_LABELS[category]))), nav: nav.deep };
      case 'reportNote':
        return {
          lines: [language.text('report.notePrompt', { max: TICKET_NOTE_MAX })],
          options: [`00. ${t('nav.skip')}`],
          nav: [nav.back, nav.exit],
        };
    }
  }

  private chosenProduct(state: MenuState, language: Language): string {
    const product = state.catalogue?.find((item) => item.code === state.order?.productCode);
    return product ? productName(language, product.kind, product.sizeKg) : '';
  }

  private menuText(state: MenuState, language: Language): string {
    const menus = this.menuOf(state, language);
    const notice = state.notice ? [noticeText(state.notice, language)] : [];
    const texts = (Array.isArray(menus) ? menus : [menus]).map((menu) => [...notice, ...menu.lines, ...menu.options, ...menu.nav].join('\n'));
    return texts.find((text) => fitsOnScreen(screenText(text))) ?? texts[texts.length - 1]!;
  }

  private pagedParts(state: MenuState, language: Language): { title: string; body: string } {
    if (state.screen === 'info') {
      const topic = state.topic ?? 'about';
      return { title: language.text(TOPIC_TITLES[topic]), body: language.text(`info.${topic}`) };
    }
    if (state.screen === 'myOrders') {
      const orders = state.orders ?? [];
      const lines = orders.map((order) =>
        language.text('orders.line', {
          orderNumber: order.orderNumber,
          date: language.date(order.placedAt),
          quantity: order.quantity,
          product: productName(language, order.kind, order.sizeKg),
          status: language.text(`status.${order.status}`),
        }),
      );
      return { title: language.text('orders.title'), body: lines.length > 0 ? lines.join('\n') : language.text('orders.none') };
    }
    const details = state.details;
    const body = details
      ? [
          language.text('accountDetails.customerId', { value: details.customerId }),
          language.text('accountDetails.name', { value: details.fullName }),
          language.text('accountDetails.email', { value: details.email ?? language.text('accountDetails.noEmail') }),
          language.text('accountDetails.phone', { value: details.phoneNumber }),
        ].join('\n')
      : '';
    return { title: language.text('accountDetails.title'), body };
  }

  private frame(language: Language, header: string, page: string, isLast: boolean): string {
    const nav = navigation(language);
    return [header, page, ...(isLast ? [] : [nav.more]), ...nav.deep].join('\n');
  }

  private pages(state: MenuState, language: Language): string[] {
    const { title, body } = this.pagedParts(state, language);
    const key = `${language.code}\u0000${title}\u0000${body}`;
    const cached = this.pageCache.get(key);
    if (cached) return cached;
    // The longest hint a paged screen can carry: pages are cut with room for it, so a hint never pushes lines off.
    const widest = [title, noticeText({ kind: 'invalidChoice' }, language)].reduce((a, b) => (b.length > a.length ? b : a));
    const pages = paginate(body, (page, _index, isLast) => this.frame(language, widest, page, isLast));
    if (this.pageCache.size >= 1000) this.pageCache.clear();
    this.pageCache.set(key, pages);
    return pages;
  }

  private pagedText(state: MenuState, language: Language): string {
    const pages = this.pages(state, language);
    const index = Math.min(state.page ?? 0, pages.length - 1);
    const header = state.notice ? noticeText(state.notice, language) : this.pagedParts(state, language).title;
    return this.frame(language, header, pages[index]!, index === pages.length - 1);
  }
}
