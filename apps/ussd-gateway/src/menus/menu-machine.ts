import type { InfoTopic } from './content';
import { normalizeDeliveryPoint, normalizeNote, OrderStatus, parseQuantity, TICKET_CATEGORIES, TicketCategory } from '../orders/order-rules';
import { isPinShaped, isTrivialPin, normalizeCustomerId, normalizeEmail, normalizeFullName } from './menu-rules';

/**
 * The menu logic as a pure state machine: state in, input out, no I/O. Work that needs the database or the PIN
 * vault is requested as an `Effect`; the caller performs it and feeds the `EffectResult` back. The state is plain
 * JSON (any instance can continue a session) and never holds a PIN in clear: a new PIN waiting for its confirmation
 * is held encrypted (PinVault's held form), and hashed only when it is written.
 */

export const SCREENS = [
  'preMenu',
  'knowMore',
  'info',
  'accountMenu',
  'loginCustomerId',
  'loginPin',
  'createName',
  'createEmail',
  'createPin',
  'createPinConfirm',
  'accountHome',
  'accountDetails',
  'changePinOld',
  'changePinNew',
  'changePinConfirm',
  'language',
  'orderProduct',
  'orderQuantity',
  'orderDelivery',
  'orderConfirm',
  'myOrders',
  'reportCategory',
  'reportNote',
  'ended',
] as const;
export type ScreenId = (typeof SCREENS)[number];

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

export interface AccountDetails {
  customerId: string;
  fullName: string;
  email: string | null;
  phoneNumber: string;
}

export interface MenuState {
  screen: ScreenId;
  /** Code of the language every screen is shown in (see languages.ts); English when absent. */
  language?: string;
  /** A one-shot hint shown above the screen (why the last input was refused, or what just happened). */
  notice?: Notice;
  topic?: InfoTopic;
  /** Page of a long body (information texts, account details), from 0. */
  page?: number;
  draft?: {
    fullName?: string;
    email?: string | null;
    /** The new PIN as first entered, encrypted (never hashed here: that happens once, when it is written). */
    heldPin?: string;
  };
  loginCustomerId?: string;
  /** `pinVersion`: the account's PIN version when its PIN was last checked here (absent in sessions older than it). */
  auth?: { customerId: string; firstName: string; pinVersion?: number };
  details?: AccountDetails;
  /** The catalogue as it was when the order flow began, and the order being put together. */
  catalogue?: CatalogueItem[];
  order?: { lastDeliveryPoint: string | null; productCode?: string; quantity?: number; deliveryPoint?: string };
  orders?: OrderSummary[];
  report?: { category: TicketCategory };
  farewell?: Farewell;
}

export type Effect =
  | { type: 'holdPin'; pin: string }
  | { type: 'matchPin'; pin: string; heldPin: string }
  /** `language`: the session's, kept as the account's until it chooses another (null: the default). */
  | { type: 'createAccount'; fullName: string; email: string | null; heldPin: string; language: string | null }
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

export function initialState(language?: string): MenuState {
  return language ? { screen: 'preMenu', language } : { screen: 'preMenu' };
}

export function isEnded(state: MenuState): boolean {
  return state.screen === 'ended';
}

export function isAuthenticated(state: MenuState): boolean {
  return state.auth !== undefined;
}

/** A signed-in session whose account got locked (by wrong PINs in another session): it ends, signed out. */
export function lockedOut(minutes: number, language?: string): MenuState {
  return end({ language }, { kind: 'locked', minutes }).state;
}

/** A signed-in session whose account's PIN was changed in another session: it ends, signed out. */
export function signedOutByPinChange(language?: string): MenuState {
  return end({ language }, { kind: 'pinChangedElsewhere' }).state;
}

const go = (state: MenuState, screen: ScreenId, extra: Partial<MenuState> = {}): Step => ({
  state: { ...withoutTransient(state), screen, ...extra },
});

/** What survives a screen change: who is signed in, and the language. Drafts, hints and pages belong to one screen or flow. */
function withoutTransient(state: MenuState): MenuState {
  return { screen: state.screen, ...lasting(state) };
}

/** What a session keeps whatever happens to the screens: the language, and who is signed in. */
function lasting(state: Pick<MenuState, 'language' | 'auth'>): Pick<MenuState, 'language' | 'auth'> {
  return { ...(state.language ? { language: state.language } : {}), ...(state.auth ? { auth: state.auth } : {}) };
}

const stay = (state: MenuState, notice: Notice, keep: Partial<MenuState> = {}): Step => ({
  state: { ...state, ...keep, notice },
});

/** The session ends signed out, its farewell in its language. */
const end = (state: Pick<MenuState, 'language'>, farewell: Farewell): Step => ({
  state: { screen: 'ended', ...(state.language ? { language: state.language } : {}), farewell },
});

const mainMenu = (state: MenuState, notice?: Notice): Step => go(state, 'preMenu', notice ? { notice } : {});

/** Where `0` leads from each screen. */
function back(state: MenuState, context: MachineContext): Step {
  switch (state.screen) {
    case 'preMenu':
    case 'ended':
      return go(state, 'preMenu');
    case 'knowMore':
    case 'accountMenu':
    case 'language':
      return go(state, 'preMenu');
    case 'info':
      if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
      return go(state, 'knowMore');
    case 'loginCustomerId':
    case 'createName':
      return go(state, 'accountMenu');
    case 'loginPin':
      return go(state, 'loginCustomerId');
    case 'createEmail':
      return go(state, 'createName', { draft: {} });
    case 'createPin':
      return go(state, 'createEmail', { draft: { fullName: state.draft?.fullName } });
    case 'createPinConfirm':
      return go(state, 'createPin', { draft: { fullName: state.draft?.fullName, email: state.draft?.email } });
    case 'accountHome':
      if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
      return go(state, 'preMenu');
    case 'accountDetails':
      if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
      return go(state, 'accountHome');
    case 'changePinOld':
    case 'changePinNew':
      return go(state, 'accountHome');
    case 'changePinConfirm':
      return go(state, 'changePinNew');
    case 'orderProduct':
      if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
      return go(state, 'accountHome');
    case 'reportCategory':
      return go(state, 'accountHome');
    case 'orderQuantity':
      return go(state, 'orderProduct', orderSoFar(state, 0));
    case 'orderDelivery':
      return go(state, 'orderQuantity', orderSoFar(state, 1));
    case 'orderConfirm':
      return go(state, 'orderDelivery', orderSoFar(state, 2));
    case 'myOrders':
      if ((state.page ?? 0) > 0) return { state: { ...state, notice: undefined, page: (state.page ?? 0) - 1 } };
      return go(state, 'accountHome');
    case 'reportNote':
      return go(state, 'reportCategory');
  }
  return assertNever(state.screen, context);
}

/** The order flow's state with its first `steps` choices (product, quantity, delivery point) kept. */
function orderSoFar(state: MenuState, steps: 0 | 1 | 2): Partial<MenuState> {
  const order = requireValue(state.order, 'order');
  const kept = [order.productCode, order.quantity, order.deliveryPoint].slice(0, steps);
  return {
    catalogue: state.catalogue,
    order: { lastDeliveryPoint: order.lastDeliveryPoint, productCode: kept[0] as string | undefined, quantity: kept[1] as number | undefined },
  };
}

function assertNever(value: never, _context?: unknown): never {
  throw new Error(`unhandled menu value ${JSON.stringify(value)}`);
}

/** One subscriber input applied to the state. `0`, `00` and `*` mean the same on every screen (see README). */
export function applyInput(current: MenuState, rawInput: string, context: MachineContext): Step {
  const input = rawInput.trim();
  const state: MenuState = { ...current, notice: undefined };
  if (state.screen === 'ended') return { state };
  if (input === EXIT) return end(state, { kind: 'goodbye' });
  // On the e-mail and note screens `00` is the documented "skip"; everywhere else it is the main menu.
  if (input === MAIN_MENU && state.screen !== 'createEmail' && state.screen !== 'reportNote') return mainMenu(state);
  if (input === BACK) return back(state, context);

  switch (state.screen) {
    case 'preMenu':
      if (input === '1') return go(state, 'knowMore');
      if (input === '2') return go(state, state.auth ? 'accountHome' : 'accountMenu');
      if (input === '3') return go(state, 'language');
      return stay(state, { kind: 'invalidChoice' });
    case 'language': {
      const language = /^[1-9]$/.test(input) ? context.languageCodes[Number(input) - 1] : undefined;
      if (!language) return stay(state, { kind: 'invalidChoice' });
      return { state, effect: { type: 'setLanguage', language, customerId: state.auth?.customerId ?? null } };
    }
    case 'knowMore': {
      const topic = ({ '1': 'about', '2': 'pricing', '3': 'delivery' } as const)[input];
      return topic ? go(state, 'info', { topic, page: 0 }) : stay(state, { kind: 'invalidChoice' });
    }
    case 'info':
    case 'accountDetails':
    case 'myOrders': {
      const page = state.page ?? 0;
      if (input === MORE && page + 1 < context.pageCount(state)) return { state: { ...state, page: page + 1 } };
      return stay(state, { kind: 'invalidChoice' });
    }
    case 'accountMenu':
      if (input === '1') return go(state, 'loginCustomerId');
      if (input === '2') return go(state, 'createName', { draft: {} });
      return stay(state, { kind: 'invalidChoice' });
    case 'loginCustomerId': {
      const customerId = normalizeCustomerId(input);
      return customerId ? go(state, 'loginPin', { loginCustomerId: customerId }) : stay(state, { kind: 'invalidCustomerId' });
    }
    case 'loginPin':
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'verifyPin', customerId: requireValue(state.loginCustomerId, 'loginCustomerId'), pin: input } };
    case 'createName': {
      const fullName = normalizeFullName(input);
      return fullName ? go(state, 'createEmail', { draft: { fullName } }) : stay(state, { kind: 'invalidName' });
    }
    case 'createEmail': {
      const fullName = requireValue(state.draft?.fullName, 'draft.fullName');
      if (input === MAIN_MENU) return go(state, 'createPin', { draft: { fullName, email: null } });
      const email = normalizeEmail(input);
      return email ? go(state, 'createPin', { draft: { fullName, email } }) : stay(state, { kind: 'invalidEmail' });
    }
    case 'createPin':
    case 'changePinNew':
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      if (isTrivialPin(input)) return stay(state, { kind: 'trivialPin' });
      return { state, effect: { type: 'holdPin', pin: input } };
    case 'createPinConfirm':
    case 'changePinConfirm':
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'matchPin', pin: input, heldPin: heldPinOf(state) } };
    case 'accountHome': {
      const auth = requireValue(state.auth, 'auth');
      const page = state.page ?? 0;
      if (input === MORE && page + 1 < context.pageCount(state)) return { state: { ...state, page: page + 1 } };
      if (input === '1') return { state, effect: { type: 'loadAccount', customerId: auth.customerId } };
      if (input === '2') return go(state, 'changePinOld');
      if (input === '3') return { state: { screen: 'preMenu', ...lasting({ language: state.language }), notice: { kind: 'loggedOut' } } };
      if (input === '4') return { state, effect: { type: 'loadCatalogue', customerId: auth.customerId } };
      if (input === '5') return { state, effect: { type: 'loadOrders', customerId: auth.customerId } };
      if (input === '6') return go(state, 'reportCategory');
      return stay(state, { kind: 'invalidChoice' });
    }
    case 'orderProduct': {
      const page = state.page ?? 0;
      if (input === MORE && page + 1 < context.pageCount(state)) return { state: { ...state, page: page + 1 } };
      const product = /^\d{1,2}$/.test(input) ? state.catalogue?.[Number(input) - 1] : undefined;
      if (!product) return stay(state, { kind: 'invalidChoice' });
      return go(state, 'orderQuantity', { catalogue: state.catalogue, order: { ...requireValue(state.order, 'order'), productCode: product.code } });
    }
    case 'orderQuantity': {
      const quantity = parseQuantity(input);
      if (quantity === null) return stay(state, { kind: 'invalidQuantity' });
      return go(state, 'orderDelivery', { catalogue: state.catalogue, order: { ...requireValue(state.order, 'order'), quantity } });
    }
    case 'orderDelivery': {
      const order = requireValue(state.order, 'order');
      const deliveryPoint = input === '1' && order.lastDeliveryPoint ? order.lastDeliveryPoint : normalizeDeliveryPoint(input);
      if (deliveryPoint === null) return stay(state, { kind: 'invalidDeliveryPoint' });
      return go(state, 'orderConfirm', { catalogue: state.catalogue, order: { ...order, deliveryPoint } });
    }
    case 'orderConfirm':
      // The existing guarded PIN check (attempt reservation, lockout) confirms; the order is placed once it says ok.
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'verifyPin', customerId: requireValue(state.auth, 'auth').customerId, pin: input } };
    case 'reportCategory': {
      const category = /^[1-9]$/.test(input) ? TICKET_CATEGORIES[Number(input) - 1] : undefined;
      return category ? go(state, 'reportNote', { report: { category } }) : stay(state, { kind: 'invalidChoice' });
    }
    case 'reportNote': {
      const note = input === MAIN_MENU ? null : normalizeNote(input);
      if (note === null && input !== MAIN_MENU) return stay(state, { kind: 'invalidNote' });
      const category = requireValue(state.report, 'report').category;
      return { state, effect: { type: 'createTicket', customerId: requireValue(state.auth, 'auth').customerId, category, note } };
    }
    case 'changePinOld':
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return { state, effect: { type: 'verifyPin', customerId: requireValue(state.auth, 'auth').customerId, pin: input } };
  }
  return assertNever(state.screen);
}

/** The answer to the effect that `state` asked for. */
export function applyEffectResult(state: MenuState, result: EffectResult): Step {
  switch (result.type) {
    case 'held':
      if (state.screen === 'createPin') return go(state, 'createPinConfirm', { draft: { ...state.draft, heldPin: result.heldPin } });
      if (state.screen === 'changePinNew') return go(state, 'changePinConfirm', { draft: { heldPin: result.heldPin } });
      break;
    case 'matched': {
      const heldPin = heldPinOf(state);
      if (state.screen === 'createPinConfirm') {
        if (!result.match) {
          return go(state, 'createPin', { draft: { fullName: state.draft?.fullName, email: state.draft?.email }, notice: { kind: 'pinMismatch' } });
        }
        const fullName = requireValue(state.draft?.fullName, 'draft.fullName');
        return { state, effect: { type: 'createAccount', fullName, email: state.draft?.email ?? null, heldPin, language: state.language ?? null } };
      }
      if (state.screen === 'changePinConfirm') {
        if (!result.match) return go(state, 'changePinNew', { notice: { kind: 'pinMismatch' } });
        const auth = requireValue(state.auth, 'auth');
        return { state, effect: { type: 'replacePin', customerId: auth.customerId, heldPin, expectedPinVersion: auth.pinVersion ?? null } };
      }
      break;
    }
    case 'created':
      // The session ends on the new Customer ID: it is what the subscriber must write down before anything else.
      if (state.screen === 'createPinConfirm') return end(state, { kind: 'accountCreated', customerId: result.customerId });
      break;
    case 'replaced':
      if (state.screen === 'changePinConfirm') {
        if (result.pinVersion === null) return end(state, { kind: 'pinNotChanged' });
        const auth = requireValue(state.auth, 'auth');
        return go({ ...state, auth: { ...auth, pinVersion: result.pinVersion } }, 'accountHome', { notice: { kind: 'pinChanged' } });
      }
      break;
    case 'hashBusy':
      // As a log-in shed for load ends: the session closes on a text that says nothing was done and to dial again.
      if (state.screen === 'createPinConfirm') return end(state, { kind: 'pinHashBusyCreate' });
      if (state.screen === 'changePinConfirm') return end(state, { kind: 'pinHashBusyChange' });
      break;
    case 'loaded':
      if (state.screen === 'accountHome') {
        if (result.account === null) return end(state, { kind: 'accountMissing' });
        return go(state, 'accountDetails', { details: result.account, page: 0 });
      }
      break;
    case 'verified':
      if (state.screen === 'loginPin' || state.screen === 'changePinOld' || state.screen === 'orderConfirm') return afterVerify(state, result.outcome);
      break;
    case 'catalogueLoaded':
      if (state.screen === 'accountHome') {
        if (result.products.length === 0) return stay(state, { kind: 'noProducts' });
        return go(state, 'orderProduct', { catalogue: result.products, order: { lastDeliveryPoint: result.lastDeliveryPoint } });
      }
      break;
    case 'orderPlaced':
      if (state.screen === 'orderConfirm') {
        if (result.order === null) return go(state, 'accountHome', { notice: { kind: 'noProducts' } });
        return end(state, { kind: 'orderPlaced', ...result.order });
      }
      break;
    case 'ordersLoaded':
      if (state.screen === 'accountHome') return go(state, 'myOrders', { orders: result.orders, page: 0 });
      break;
    case 'ticketCreated':
      if (state.screen === 'reportNote') {
        if (result.ticketNumber === null) return end(state, { kind: 'accountMissing' });
        return end(state, { kind: 'ticketCreated', ticketNumber: result.ticketNumber });
      }
      break;
    case 'languageSet':
      if (state.screen === 'language') return go({ ...state, language: result.language }, 'preMenu', { notice: { kind: 'languageChanged' } });
      break;
  }
  throw new Error(`effect result ${result.type} does not belong to screen ${state.screen}`);
}

function afterVerify(state: MenuState, outcome: VerifyOutcome): Step {
  switch (outcome.kind) {
    case 'ok':
      // The version the new PIN will be written over: a change made elsewhere from now on makes this one stale.
      if (state.screen === 'changePinOld') {
        const auth = requireValue(state.auth, 'auth');
        return go({ ...state, auth: { ...auth, pinVersion: outcome.pinVersion } }, 'changePinNew');
      }
      if (state.screen === 'orderConfirm') {
        const order = requireValue(state.order, 'order');
        return {
          state,
          effect: {
            type: 'placeOrder',
            customerId: requireValue(state.auth, 'auth').customerId,
            productCode: requireValue(order.productCode, 'order.productCode'),
            quantity: requireValue(order.quantity, 'order.quantity'),
            deliveryPoint: requireValue(order.deliveryPoint, 'order.deliveryPoint'),
          },
        };
      }
      // The account's language, once it has chosen one, wins over the phone's: a shared handset shows each member theirs.
      return {
        state: {
          screen: 'accountHome',
          ...lasting({ language: outcome.language ?? state.language }),
          auth: { customerId: requireValue(state.loginCustomerId, 'loginCustomerId'), firstName: outcome.firstName, pinVersion: outcome.pinVersion },
        },
      };
    case 'wrong':
      // Signed in, the account is known to the subscriber; at log-in the Customer ID may be what is wrong.
      if (state.screen !== 'loginPin') return stay(state, { kind: 'wrongPin', attemptsLeft: outcome.attemptsLeft });
      return stay(state, { kind: 'wrongCredentials', attemptsLeft: outcome.attemptsLeft });
    case 'locked':
      return end(state, outcome.justNow ? { kind: 'lockedNow', minutes: outcome.minutes } : { kind: 'locked', minutes: outcome.minutes });
    case 'busy':
      return stay(state, { kind: 'pinBusy' });
    case 'overloaded':
      return end(state, { kind: 'pinHashBusy' });
  }
  return assertNever(outcome);
}

function heldPinOf(state: MenuState): string {
  return requireValue(state.draft?.heldPin, 'draft.heldPin');
}

function requireValue<T>(value: T | undefined | null, name: string): T {
  // A state missing what its screen needs can only come from a bug or a tampered store; fail loudly.
  if (value === undefined || value === null) throw new Error(`menu state is missing ${name}`);
  return value;
}
