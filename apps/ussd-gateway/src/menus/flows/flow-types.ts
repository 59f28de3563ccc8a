import type { TicketCategory, OrderStatus } from '../../domain/order-rules';
import type { InfoTopic } from '../content';
import type { Language, MessageKey } from '../languages';

/**
 * The types every flow of the menu machine is made of, below every flow and the helpers in flow.ts: each flow's
 * screen ids and session fields, the session state, the effects a screen may ask for and their
 * answers, and the shape of one screen (its inputs, its way back, its answers to effects, what it shows). Pure: no
 * Nest, no I/O. The state is plain JSON (any instance can continue a session) and never holds a PIN in clear: a new
 * PIN waiting for its confirmation is held encrypted (PinVault's held form), and hashed only when it is written.
 */

/** The main menu and Know More (pre-menu.flow.ts). */
export type PreMenuScreen = 'preMenu' | 'knowMore' | 'info';

export interface PreMenuState {
  topic?: InfoTopic;
}

/** Choosing the language (language.flow.ts). */
export type LanguageScreen = 'language';

/** The account menu and log-in (account-menu.flow.ts). */
export type AccountMenuScreen = 'accountMenu' | 'loginCustomerId' | 'loginPin';

export interface AccountMenuState {
  loginCustomerId?: string;
}

/** Creating an account (create-account.flow.ts). */
export type CreateAccountScreen = 'createName' | 'createEmail' | 'createPin' | 'createPinConfirm';

/** The signed-in menu, details, PIN change (account-home.flow.ts). */
export type AccountHomeScreen =
  | 'accountHome'
  | 'accountDetails'
  | 'changePinOld'
  | 'changePinNew'
  | 'changePinConfirm';

export interface AccountDetails {
  customerId: string;
  fullName: string;
  email: string | null;
  phoneNumber: string;
}

export interface AccountHomeState {
  details?: AccountDetails;
}

/** Ordering fuel and "My orders" (order.flow.ts). */
export type OrderScreen = 'orderProduct' | 'orderQuantity' | 'orderDelivery' | 'orderConfirm' | 'myOrders';

/** A product of the fuel catalogue, as the order menu lists it (`kind` names its content key `product.<kind>`). */
export interface CatalogueItem {
  code: string;
  kind: string;
  sizeKg: number;
  priceMinor: number;
  currency: string;
}

/** One line of "My orders". */
export interface OrderSummary {
  orderNumber: string;
  placedAt: string;
  quantity: number;
  kind: string;
  sizeKg: number;
  status: OrderStatus;
}

export interface OrderFlowState {
  /** The catalogue as it was when the order flow began, and the order being put together. */
  catalogue?: CatalogueItem[];
  order?: {
    lastDeliveryPoint: string | null;
    productCode?: string;
    quantity?: number;
    deliveryPoint?: string;
  };
  orders?: OrderSummary[];
}

/** Reporting a stove problem (report.flow.ts). */
export type ReportScreen = 'reportCategory' | 'reportNote';

export interface ReportState {
  report?: { category: TicketCategory };
}

/** Every screen of a flow: each flow names its own above and gives each a spec in its `<flow>.flow.ts`. */
export type FlowScreen =
  | PreMenuScreen
  | LanguageScreen
  | AccountMenuScreen
  | CreateAccountScreen
  | AccountHomeScreen
  | OrderScreen
  | ReportScreen;

/** `ended`: the session is over (an END text); it takes no input and belongs to no flow. */
export type ScreenId = FlowScreen | 'ended';

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
