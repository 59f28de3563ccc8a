import type { MenuContent } from './content';
import { Farewell, MachineContext, MenuState, Notice } from './menu-machine';
import { fitsOnScreen, paginate } from './screen-text';

export interface RenderedScreen {
  kind: 'CON' | 'END';
  /** What the handset shows, without the CON/END prefix; always fits on one screen. */
  text: string;
}

const EXIT_LINE = '*. Exit';
const BACK_LINE = '0. Back';
const MAIN_LINE = '00. Main menu';
const MORE_LINE = '98. More';

const TOPIC_TITLES = { about: 'About this service', pricing: 'Pricing', delivery: 'Delivery' } as const;

const triesLeft = (count: number): string => `${count} ${count === 1 ? 'try' : 'tries'} left.`;

export function noticeText(notice: Notice): string {
  switch (notice.kind) {
    case 'invalidChoice':
      return 'Invalid choice. Try again.';
    case 'invalidName':
      return "Use letters, spaces, - or ' only.";
    case 'invalidEmail':
      return 'That e-mail is not valid.';
    case 'invalidPin':
      return 'A PIN is exactly 5 digits.';
    case 'trivialPin':
      return 'That PIN is too easy to guess.';
    case 'pinMismatch':
      return 'The PINs did not match.';
    case 'invalidCustomerId':
      return 'A Customer ID looks like C1A2B3C4D.';
    case 'wrongPin':
      return `Wrong PIN. ${triesLeft(notice.attemptsLeft)}`;
    case 'wrongCredentials':
      return `Customer ID or PIN is wrong. ${triesLeft(notice.attemptsLeft)}`;
    case 'pinBusy':
      return 'Too many PIN attempts at once. Try again.';
    case 'pinChanged':
      return 'Your PIN has been changed.';
    case 'loggedOut':
      return 'You are logged out.';
  }
}

const minutes = (count: number): string => `${count} minute${count === 1 ? '' : 's'}`;

export function farewellText(farewell: Farewell): string {
  switch (farewell.kind) {
    case 'goodbye':
      return 'Thank you for using our service. Goodbye!';
    case 'lockedNow':
      return `Too many wrong PINs. Your account is locked for ${minutes(farewell.minutes)}.`;
    case 'locked':
      return `Your account is locked after too many wrong PINs. Try again in ${minutes(farewell.minutes)}.`;
    case 'accountMissing':
      return 'Your account could not be found. Please dial again.';
    case 'accountCreated':
      return `Account created. Your Customer ID is ${farewell.customerId}. Keep it safe: you need it and your PIN to log in.`;
  }
}

/** The longest hint a paged screen can carry; pages are cut with room for it, so a hint never pushes lines off. */
const LONGEST_PAGED_NOTICE = noticeText({ kind: 'invalidChoice' });

interface Menu {
  /** The first line, or alternatives from best to plainest when it carries subscriber text (a name). */
  lines: string[] | { choices: string[] };
  options: string[];
  nav: string[];
}

/** `Ọlá` → `Ola`: accents off, so a name does not force the whole screen into UCS-2 (80 characters). */
function withoutAccents(text: string): string {
  return text.normalize('NFD').replace(/\p{M}/gu, '');
}

const DEEP_NAV = [BACK_LINE, MAIN_LINE, EXIT_LINE];

function menuOf(state: MenuState): Menu {
  switch (state.screen) {
    case 'info':
    case 'accountDetails':
    case 'ended':
      throw new Error(`${state.screen} is not a menu screen`);
    case 'preMenu':
      return { lines: ['Welcome to Clean Cooking'], options: ['1. Know More', '2. Account Menu'], nav: [EXIT_LINE] };
    case 'knowMore':
      return {
        lines: ['Know More'],
        options: ['1. About this service', '2. Pricing', '3. Delivery'],
        nav: [BACK_LINE, EXIT_LINE],
      };
    case 'accountMenu':
      return { lines: ['Account Menu'], options: ['1. Log in', '2. Create account'], nav: [BACK_LINE, EXIT_LINE] };
    case 'loginCustomerId':
      return { lines: ['Enter your Customer ID'], options: [], nav: DEEP_NAV };
    case 'loginPin':
      return { lines: [`Enter the 5-digit PIN for ${state.loginCustomerId ?? 'your account'}`], options: [], nav: DEEP_NAV };
    case 'createName':
      return { lines: ['Enter your full name'], options: [], nav: DEEP_NAV };
    case 'createEmail':
      return { lines: ['Enter your e-mail address'], options: ['00. Skip'], nav: [BACK_LINE, EXIT_LINE] };
    case 'createPin':
      return { lines: ['Choose a 5-digit PIN'], options: [], nav: DEEP_NAV };
    case 'createPinConfirm':
      return { lines: ['Enter the same PIN again'], options: [], nav: DEEP_NAV };
    case 'accountHome':
      return {
        lines: {
          choices: [
            `Welcome, ${state.auth?.firstName ?? ''}`,
            `Welcome, ${withoutAccents(state.auth?.firstName ?? '')}`,
            'Welcome',
          ],
        },
        options: ['1. Account details', '2. Change PIN', '3. Log out'],
        nav: [BACK_LINE, EXIT_LINE],
      };
    case 'changePinOld':
      return { lines: ['Enter your current PIN'], options: [], nav: DEEP_NAV };
    case 'changePinNew':
      return { lines: ['Enter a new 5-digit PIN'], options: [], nav: DEEP_NAV };
    case 'changePinConfirm':
      return { lines: ['Enter the new PIN again'], options: [], nav: DEEP_NAV };
  }
}

/**
 * The one place that turns states into screens. Navigation lines are part of the frame measured before any
 * content is placed, so they can never be the part that falls off a full screen; long bodies are paged (`98`).
 */
export class MenuRenderer implements MachineContext {
  /** Pages of a body depend only on the body, so they are cut once (account details vary, hence the bound). */
  private readonly pageCache = new Map<string, string[]>();

  constructor(private readonly content: MenuContent) {}

  render(state: MenuState): RenderedScreen {
    if (state.screen === 'ended') {
      return { kind: 'END', text: farewellText(state.farewell ?? { kind: 'goodbye' }) };
    }
    const text = this.isPaged(state) ? this.pagedText(state) : this.menuText(state);
    if (!fitsOnScreen(text)) {
      // Only reachable with a renderer bug; the screen walker test proves every reachable screen fits.
      throw new Error(`screen ${state.screen} does not fit on a handset`);
    }
    return { kind: 'CON', text };
  }

  pageCount(state: MenuState): number {
    return this.isPaged(state) ? this.pages(state).length : 1;
  }

  private isPaged(state: MenuState): boolean {
    return state.screen === 'info' || state.screen === 'accountDetails';
  }

  private menuText(state: MenuState): string {
    const menu = menuOf(state);
    const notice = state.notice ? [noticeText(state.notice)] : [];
    const compose = (lines: string[]): string => [...notice, ...lines, ...menu.options, ...menu.nav].join('\n');
    if (Array.isArray(menu.lines)) return compose(menu.lines);
    const texts = menu.lines.choices.map((line) => compose([line]));
    return texts.find(fitsOnScreen) ?? texts[texts.length - 1]!;
  }

  private pagedParts(state: MenuState): { title: string; body: string } {
    if (state.screen === 'info') {
      const topic = state.topic ?? 'about';
      return { title: TOPIC_TITLES[topic], body: this.content[topic] };
    }
    const details = state.details;
    const body = details
      ? [
          `Customer ID: ${details.customerId}`,
          `Name: ${details.fullName}`,
          `E-mail: ${details.email ?? 'none'}`,
          `Phone: ${details.phoneNumber}`,
        ].join('\n')
      : '';
    return { title: 'Your account', body };
  }

  private frame(header: string, page: string, isLast: boolean): string {
    return [header, page, ...(isLast ? [] : [MORE_LINE]), ...DEEP_NAV].join('\n');
  }

  private pages(state: MenuState): string[] {
    const { title, body } = this.pagedParts(state);
    const key = `${title}\u0000${body}`;
    const cached = this.pageCache.get(key);
    if (cached) return cached;
    const widest = [title, LONGEST_PAGED_NOTICE].reduce((a, b) => (b.length > a.length ? b : a));
    const pages = paginate(body, (page, _index, isLast) => this.frame(widest, page, isLast));
    if (this.pageCache.size >= 1000) this.pageCache.clear();
    this.pageCache.set(key, pages);
    return pages;
  }

  private pagedText(state: MenuState): string {
    const pages = this.pages(state);
    const index = Math.min(state.page ?? 0, pages.length - 1);
    const header = state.notice ? noticeText(state.notice) : this.pagedParts(state).title;
    return this.frame(header, pages[index]!, index === pages.length - 1);
  }
}
