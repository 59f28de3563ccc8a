import { Language, Languages, MessageKey } from './languages';
import { Farewell, MachineContext, MenuState, Notice } from './menu-machine';
import { fitsOnScreen, paginate, screenText } from './screen-text';

export interface RenderedScreen {
  kind: 'CON' | 'END';
  /** What the handset shows, without the CON/END prefix; always fits on one screen. */
  text: string;
}

const TOPIC_TITLES = { about: 'knowMore.about', pricing: 'knowMore.pricing', delivery: 'knowMore.delivery' } as const;

export function noticeText(notice: Notice, language: Language): string {
  if (notice.kind === 'wrongPin' || notice.kind === 'wrongCredentials') return language.plural(`notice.${notice.kind}`, notice.attemptsLeft);
  return language.text(`notice.${notice.kind}`);
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
    case 'accountCreated':
      return language.text('farewell.accountCreated', { customerId: farewell.customerId });
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

  render(state: MenuState): RenderedScreen {
    const language = this.languages.get(state.language);
    if (state.screen === 'ended') {
      return { kind: 'END', text: screenText(farewellText(state.farewell ?? { kind: 'goodbye' }, language)) };
    }
    const text = screenText(this.isPaged(state) ? this.pagedText(state, language) : this.menuText(state, language));
    if (!fitsOnScreen(text)) {
      // Only reachable with a renderer bug or a content file too long; the screen walker test proves every reachable
      // screen of every shipped language fits.
      throw new Error(`screen ${state.screen} does not fit on a handset in ${language.code}`);
    }
    return { kind: 'CON', text };
  }

  pageCount(state: MenuState): number {
    return this.isPaged(state) ? this.pages(state, this.languages.get(state.language)).length : 1;
  }

  private isPaged(state: MenuState): boolean {
    return state.screen === 'info' || state.screen === 'accountDetails';
  }

  private menuOf(state: MenuState, language: Language): Menus {
    const t = (key: MessageKey): string => language.text(key);
    const nav = navigation(language);
    const prompt = (key: MessageKey): Menu => ({ lines: [t(key)], options: [], nav: nav.deep });
    switch (state.screen) {
      case 'info':
      case 'accountDetails':
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
      case 'accountHome': {
        const name = state.auth?.firstName ?? '';
        const options = numbered([t('accountHome.details'), t('accountHome.changePin'), t('accountHome.logOut')]);
        return [
          language.text('accountHome.welcome', { name }),
          language.text('accountHome.welcome', { name: withoutAccents(name) }),
          t('accountHome.welcomePlain'),
        ].map((line) => ({ lines: [line], options, nav: [nav.back, nav.exit] }));
      }
      case 'changePinOld':
        return prompt('changePinOld.prompt');
      case 'changePinNew':
        return prompt('changePinNew.prompt');
      case 'changePinConfirm':
        return prompt('changePinConfirm.prompt');
    }
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
