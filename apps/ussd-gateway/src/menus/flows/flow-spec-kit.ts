import {
  CatalogueItem,
  Effect,
  EffectResult,
  initialState,
  MenuState,
  Step,
  applyEffectResult,
  applyInput,
} from '../menu-machine';
import { loadLanguages } from '../languages';
import { MenuRenderer } from '../menu-renderer';

/** What the flows' specs share: the shipped languages, a renderer, and walking inputs with chosen effect results. */

export const shipped = loadLanguages();
export const renderer = new MenuRenderer(shipped);

/** Follows a step to its end with one chosen result per effect. */
export function settle(step: Step, results: Partial<Record<Effect['type'], EffectResult>>): MenuState {
  let current = step;
  while (current.effect) {
    const result = results[current.effect.type];
    if (!result) throw new Error(`no result for ${current.effect.type}`);
    current = applyEffectResult(current.state, result);
  }
  return current.state;
}

export const defaults: Partial<Record<Effect['type'], EffectResult>> = {
  holdPin: { type: 'held', heldPin: 'held-pin' },
  matchPin: { type: 'matched', match: true },
  createAccount: { type: 'created', customerId: 'C0A1B2C3D' },
  verifyPin: { type: 'verified', outcome: { kind: 'ok', firstName: 'Jane', language: null, pinVersion: 1 } },
  loadAccount: {
    type: 'loaded',
    account: { customerId: 'C0A1B2C3D', fullName: 'Jane Smith', email: null, phoneNumber: '+254700000001' },
  },
  replacePin: { type: 'replaced', pinVersion: 2 },
  loadCatalogue: { type: 'catalogueLoaded', products: [], lastDeliveryPoint: null },
  placeOrder: { type: 'orderPlaced', order: { orderNumber: 'F000042', totalMinor: 50_000, currency: 'KES' } },
  loadOrders: { type: 'ordersLoaded', orders: [] },
  createTicket: { type: 'ticketCreated', ticketNumber: 'T000007' },
};

export function walk(inputs: string[], results = defaults, from = initialState()): MenuState {
  return inputs.reduce((state, input) => settle(applyInput(state, input, renderer), results), from);
}

export const text = (state: MenuState): string => {
  const screen = renderer.render(state);
  return `${screen.kind} ${screen.text}`;
};

export const CATALOGUE: CatalogueItem[] = [
  { code: 'pellets-10kg', kind: 'pellets', sizeKg: 10, priceMinor: 25_000, currency: 'KES' },
  { code: 'pellets-25kg', kind: 'pellets', sizeKg: 25, priceMinor: 60_000, currency: 'KES' },
  // A kind no content file names yet: shown by its code.
  { code: 'charcoal-12', kind: 'charcoal', sizeKg: 12.5, priceMinor: 9_999_999, currency: 'KES' },
];
