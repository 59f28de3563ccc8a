import type { Language, MessageKey } from '../languages';
import type { TicketCategory } from '../../orders/order-rules';
import type { ScreenId } from './flows';
import type { AccountHomeState, AccountDetails } from './account-home.flow';
import type { AccountMenuState } from './account-menu.flow';
import type { CatalogueItem, OrderFlowState, OrderSummary } from './order.flow';
import type { PreMenuState } from './pre-menu.flow';
import type { ReportState } from './report.flow';

/**
 * What every flow of the menu machine is made of: the session state, the effects a screen may ask for and their
 * answers, and the shape of one screen (its inputs, its way back, its answers to effects, what it shows). Pure: no
 * Nest, no I/O. The state is plain JSON (any instance can continue a session) and never holds a PIN in clear: a new
 * PIN waiting for its confirmation is held encrypted (PinVault's held form), and hashed only when it is written.
 */

export type Notice =
  | { kind: 'invalidChoice' }
  | { kind: 'invalidName' }
  | { kind: 'invalidEmail' }
  | { kind: 'invalidPin' }
  | { kind: 'trivialPin' }
  | { kind: 'pinMismatch' }
  | { kind: 'invalidCustomerId' }
  | { kind: 'wrongPin'; attemptsLeft: number }
  /** A wrong PIN at log-in: worded so that it does not tell whether the Customer ID exists. */
  | { kind: 'wrongCredentials'; attemptsLeft: number }
  | { kind: 'pinBusy' }
  | { kind: 'pinChanged' }
  | { kind: 'loggedOut' }
  | { kind: 'languageChanged' }
  | { kind: 'invalidQuantity' }
  | { kind: 'invalidDeliveryPoint' }
  | { kind: 'invalidNote' }
  | { kind: 'noProducts' };

export type Farewell =
  | { kind: 'goodbye' }
  | { kind: 'lockedNow'; minutes: number }
  | { kind: 'locked'; minutes: number }
  | { kind: 'accountMissing' }
  /** Every PIN hash slot was taken for longer than the hop may wait: nothing was checked, written or charged. */
  | { kind: 'pinHashBusy' }
  | { kind: 'pinHashBusyCreate' }
  | { kind: 'pinHashBusyChange' }
  /** Another session changed the PIN while this one was changing it: this one's new PIN was not written. */
  | { kind: 'pinNotChanged' }
  /** The PIN was changed in another session: this one, signed in under the old PIN, is signed out. */
  | { kind: 'pinChangedElsewhere' }
  | { kind: 'accountCreated'; customerId: string }
  | { kind: 'orderPlaced'; orderNumber: string; totalMinor: number; currency: string }
  | { kind: 'ticketCreated'; ticketNumber: string };

/** What every session carries, whatever its flow; each flow adds the fields of its own screens. */
export interface SessionBasics {
  screen: ScreenId;
  /** Code of the language every screen is shown in (see languages.ts); English when absent. */
  language?: string;
  /** A one-shot hint shown above the screen (why the last input was refused, or what just happened). */
  notice?: Notice;
  /** Page of a long body or list, from 0. */
  page?: number;
  /** `pinVersion`: the account's PIN version when its PIN was last checked here (absent in sessions older than it). */
  auth?: { customerId: string; firstName: string; pinVersion?: number };
  /** The account being created, or the new PIN waiting for its confirmation (creation and PIN change). */
  draft?: {
    fullName?: string;
    email?: string | null;
    /** The new PIN as first entered, encrypted (never hashed here: that happens once, when it is written). */
    heldPin?: string;
  };
  farewell?: Farewell;
}

export interface MenuState
  extends SessionBasics,
    PreMenuState,
    AccountMenuState,
    AccountHomeState,
    OrderFlowState,
    ReportState {}

export type Effect =
  | { type: 'holdPin'; pin: string }
  | { type: 'matchPin'; pin: string; heldPin: string }
  /** `language`: the session's, kept as the account's until it chooses another (null: the default). */
  | {
      type: 'createAccount';
      fullName: string;
      email: string | null;
      heldPin: string;
      language: string | null;
    }
  | { type: 'verifyPin'; customerId: string; pin: string }
  | { type: 'loadAccount'; customerId: string }
  /** Written only over `expectedPinVersion`, the version the old PIN was checked against (null: unconditionally). */
  | { type: 'replacePin'; customerId: string; heldPin: string; expectedPinVersion: number | null }
  /** Remembered for the phone number, and for the account when signed in. */
  | { type: 'setLanguage'; language: string; customerId: string | null }
  | { type: 'loadCatalogue'; customerId: string }
  /** Asked for only after the PIN that confirms it was found right (verifyPin on orderConfirm). */
  | { type: 'placeOrder'; customerId: string; productCode: string; quantity: number; deliveryPoint: string }
  | { type: 'loadOrders'; customerId: string }
  | { type: 'createTicket'; customerId: string; category: TicketCategory; note: string | null };

/** An unknown Customer ID is `wrong` (and locks) exactly like a known one: the answers must not tell them apart. */
export type VerifyOutcome =
  | { kind: 'ok'; firstName: string; language: string | null; pinVersion: number }
  | { kind: 'wrong'; attemptsLeft: number }
  | { kind: 'locked'; minutes: number; justNow: boolean }
  /** Too many attempts on this Customer ID are being checked at this moment; this one was not (nor charged). */
  | { kind: 'busy' }
  /** Every PIN hash slot is taken for longer than the hop may wait: not checked, not charged, the session ends. */
  | { kind: 'overloaded' };

export type EffectResult =
  | { type: 'held'; heldPin: string }
  | { type: 'matched'; match: boolean }
  | { type: 'created'; customerId: string }
  | { type: 'verified'; outcome: VerifyOutcome }
  | { type: 'loaded'; account: AccountDetails | null }
  /** `pinVersion` null: the PIN was changed elsewhere since the old one was checked here; nothing was written. */
  | { type: 'replaced'; pinVersion: number | null }
  /** The PIN hash gate refused the account creation or PIN change: nothing was written. */
  | { type: 'hashBusy' }
  | { type: 'languageSet'; language: string }
  | { type: 'catalogueLoaded'; products: CatalogueItem[]; lastDeliveryPoint: string | null }
  /** null: the product was withdrawn or the account removed while the order was being put together. */
  | { type: 'orderPlaced'; order: { orderNumber: string; totalMinor: number; currency: string } | null }
  | { type: 'ordersLoaded'; orders: OrderSummary[] }
  | { type: 'ticketCreated'; ticketNumber: string | null };

export interface Step {
  state: MenuState;
  effect?: Effect;
}

export interface MachineContext {
  /** Pages the renderer needs for the body of this state (1 for screens without a long body). */
  pageCount(state: MenuState): number;
  /** The languages a subscriber can choose, in the order the language menu lists them. */
  readonly languageCodes: readonly string[];
}

export const EXIT = '*';
export const BACK = '0';
export const MAIN_MENU = '00';
export const MORE = '98';

/** A hint whose text depends on the language only (not a count of tries). */
export type PlainHint = Exclude<Notice, { attemptsLeft: number }>['kind'];

/** Lines above the options, the options, and the navigation lines (measured first, never cut). */
export interface Menu {
  lines: string[];
  options: string[];
  nav: string[];
}

/** What a screen shows, as data; the renderer measures, pages and encodes it. */
export type ScreenView =
  /** One screen; several menus are alternatives from best to plainest, for text of unknown length (a name). */
  | { kind: 'menu'; menus: Menu[] }
  /** A long body under a title, paged (`98`) between words. */
  | { kind: 'text'; title: string; body: string }
  /** Options paged (`98`) under the same lines on every page, numbered across pages; room kept for `hints`. */
  | { kind: 'list'; menu: Menu; hints: readonly PlainHint[] }
  /**
   * Options under a greeting: on one screen when that fits, else paged with the greeting on the first page only.
   * `greetings` best first; `plain` is what shows under a hint that leaves no room for a better one.
   */
  | {
      kind: 'greeted';
      greetings: string[];
      plain: string;
      options: string[];
      nav: string[];
      hints: readonly PlainHint[];
    };

/** What a screen's view is built with: the session's language and the navigation lines in it. */
export interface ViewKit {
  language: Language;
  t(key: MessageKey): string;
  nav: { exit: string; back: string; main: string; more: string; skip: string; deep: string[] };
  /** Every language the service offers, in the language menu's order. */
  languages: readonly Language[];
}

/** One screen of a flow. */
export interface ScreenSpec {
  /** `00` is an input of this screen (skip), not the main menu. */
  ownsMainMenu?: true;
  /** The same text for every session in a language, hint, topic and page: rendered once, then served as it is. */
  fixed?: true;
  input(state: MenuState, input: string, context: MachineContext): Step;
  /** Where `0` leads. */
  back(state: MenuState): Step;
  /** The answer to an effect this screen asked for; undefined when the result does not belong to it. */
  result?(state: MenuState, result: EffectResult): Step | undefined;
  view(state: MenuState, kit: ViewKit): ScreenView;
}

/** A flow: its screens by id. Typed over the flow's screen ids, so a screen without its spec does not compile. */
export type Flow<S extends string> = Record<S, ScreenSpec>;

export const go = (state: MenuState, screen: ScreenId, extra: Partial<MenuState> = {}): Step => ({
  state: { ...withoutTransient(state), screen, ...extra },
});

/** What survives a screen change: who is signed in, and the language. Drafts, hints and pages belong to one screen or flow. */
function withoutTransient(state: MenuState): MenuState {
  return { screen: state.screen, ...lasting(state) };
}

/** What a session keeps whatever happens to the screens: the language, and who is signed in. */
export function lasting(state: Pick<MenuState, 'language' | 'auth'>): Pick<MenuState, 'language' | 'auth'> {
  return {
    ...(state.language ? { language: state.language } : {}),
    ...(state.auth ? { auth: state.auth } : {}),
  };
}

export const stay = (state: MenuState, notice: Notice, keep: Partial<MenuState> = {}): Step => ({
  state: { ...state, ...keep, notice },
});

/** The session ends signed out, its farewell in its language. */
export const end = (state: Pick<MenuState, 'language'>, farewell: Farewell): Step => ({
  state: { screen: 'ended', ...(state.language ? { language: state.language } : {}), farewell },
});

/** `98` on a paged screen: the next page, or the invalid-choice hint on the last. */
export function nextPage(state: MenuState, input: string, context: MachineContext): Step | undefined {
  const page = state.page ?? 0;
  if (input === MORE && page + 1 < context.pageCount(state)) return { state: { ...state, page: page + 1 } };
  return undefined;
}

/** `0` on a paged screen: the previous page, or `otherwise` from the first. */
export function previousPage(state: MenuState, otherwise: () => Step): Step {
  if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
  return otherwise();
}

export const numbered = (labels: string[]): string[] =>
  labels.map((label, index) => `${index + 1}. ${label}`);

/** A screen asking for one value: its prompt and the full navigation. */
export const prompt = (kit: ViewKit, key: MessageKey): ScreenView => ({
  kind: 'menu',
  menus: [{ lines: [kit.t(key)], options: [], nav: kit.nav.deep }],
});

/** A PIN check's outcome on any screen that asked for one; `ok` is the screen's own. */
export function afterVerify(
  state: MenuState,
  outcome: VerifyOutcome,
  ok: (outcome: Extract<VerifyOutcome, { kind: 'ok' }>) => Step,
): Step {
  switch (outcome.kind) {
    case 'ok':
      return ok(outcome);
    case 'wrong':
      // Signed in, the account is known to the subscriber; at log-in the Customer ID may be what is wrong.
      if (state.screen !== 'loginPin')
        return stay(state, { kind: 'wrongPin', attemptsLeft: outcome.attemptsLeft });
      return stay(state, { kind: 'wrongCredentials', attemptsLeft: outcome.attemptsLeft });
    case 'locked':
      return end(
        state,
        outcome.justNow
          ? { kind: 'lockedNow', minutes: outcome.minutes }
          : { kind: 'locked', minutes: outcome.minutes },
      );
    case 'busy':
      return stay(state, { kind: 'pinBusy' });
    case 'overloaded':
      return end(state, { kind: 'pinHashBusy' });
  }
}

export function heldPinOf(state: MenuState): string {
  return requireValue(state.draft?.heldPin, 'draft.heldPin');
}

export function requireValue<T>(value: T | undefined | null, name: string): T {
  // A state missing what its screen needs can only come from a bug or a tampered store; fail loudly.
  if (value === undefined || value === null) throw new Error(`menu state is missing ${name}`);
  return value;
}
