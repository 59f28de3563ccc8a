import { applyEffectResult, applyInput, isAuthenticated, MenuState } from '../menu-machine';
import { CATALOGUE, defaults, renderer, text, walk } from './flow-spec-kit';

const home: MenuState = { screen: 'accountHome', auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } };
const withCatalogue = {
  ...defaults,
  loadCatalogue: { type: 'catalogueLoaded', products: CATALOGUE, lastDeliveryPoint: 'Kibera market' },
} as const;

describe('ordering fuel and my orders', () => {
  it('orders fuel: product, quantity, delivery point, PIN, then the order number on an END screen', () => {
    const products = walk(['4'], withCatalogue, home);
    expect(text(products)).toBe(
      'CON Order fuel\n1. Pellets 10 kg: KES 250\n2. Pellets 25 kg: KES 600\n3. charcoal 12.5 kg: KES 99,999.99\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(text(walk(['2'], withCatalogue, products))).toBe(
      'CON Pellets 25 kg\nHow many bags? (1-20)\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(walk(['2', '21'], withCatalogue, products).notice).toEqual({ kind: 'invalidQuantity' });
    const delivery = walk(['2', '3'], withCatalogue, products);
    expect(text(delivery)).toBe(
      'CON Where should we deliver? (village, landmark)\n1. Kibera market\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(walk(['<>'], withCatalogue, delivery).notice).toEqual({ kind: 'invalidDeliveryPoint' });
    const confirm = walk(['1'], withCatalogue, delivery);
    expect(text(confirm)).toBe(
      'CON 3 x Pellets 25 kg\nTotal: KES 1,800\nTo: Kibera market\nEnter your PIN to confirm\n0. Back\n00. Main menu\n*. Exit',
    );
    expect(walk(['Gikomba, stall 12'], withCatalogue, delivery).order?.deliveryPoint).toBe(
      'Gikomba, stall 12',
    );

    const pinEntered = applyInput(confirm, '24680', renderer);
    expect(pinEntered.effect).toEqual({ type: 'verifyPin', customerId: 'C0A1B2C3D', pin: '24680' });
    const verified = applyEffectResult(pinEntered.state, {
      type: 'verified',
      outcome: { kind: 'ok', firstName: 'Jane', language: null, pinVersion: 1 },
    });
    expect(verified.effect).toEqual({
      type: 'placeOrder',
      customerId: 'C0A1B2C3D',
      productCode: 'pellets-25kg',
      quantity: 3,
      deliveryPoint: 'Kibera market',
    });
    const placed = applyEffectResult(verified.state, {
      type: 'orderPlaced',
      order: { orderNumber: 'F000042', totalMinor: 180_000, currency: 'KES' },
    });
    expect(text(placed.state)).toBe('END Order F000042 placed: KES 1,800. We will call you before delivery.');
    expect(isAuthenticated(placed.state)).toBe(false);
    // The PIN went to the check and nowhere else.
    expect(JSON.stringify([verified, placed])).not.toContain('24680');
  });

  it('keeps the order on a wrong PIN, ends it on a lock, and goes back one step at a time', () => {
    const confirm = walk(['4', '1', '2', 'Kibera market'], withCatalogue, home);
    expect(confirm.screen).toBe('orderConfirm');
    const wrong = walk(
      ['11111'],
      { ...withCatalogue, verifyPin: { type: 'verified', outcome: { kind: 'wrong', attemptsLeft: 2 } } },
      confirm,
    );
    expect(wrong).toMatchObject({
      screen: 'orderConfirm',
      notice: { kind: 'wrongPin', attemptsLeft: 2 },
      order: confirm.order,
    });
    expect(text(wrong)).toMatch(/^CON Wrong PIN\. 2 tries left\.\n2 x Pellets 10 kg\nTotal: KES 500\n/);
    expect(
      walk(
        ['11111'],
        {
          ...withCatalogue,
          verifyPin: { type: 'verified', outcome: { kind: 'locked', minutes: 15, justNow: true } },
        },
        confirm,
      ),
    ).toMatchObject({
      screen: 'ended',
      farewell: { kind: 'lockedNow' },
    });
    expect(walk(['0'], withCatalogue, confirm)).toMatchObject({
      screen: 'orderDelivery',
      order: { productCode: 'pellets-10kg', quantity: 2 },
    });
    expect(walk(['0', '0'], withCatalogue, confirm)).toMatchObject({
      screen: 'orderQuantity',
      order: { productCode: 'pellets-10kg' },
    });
    expect(walk(['0', '0', '0', '0'], withCatalogue, confirm)).toMatchObject({ screen: 'accountHome' });
    expect(walk(['4'], defaults, home)).toMatchObject({
      screen: 'accountHome',
      notice: { kind: 'noProducts' },
    });
    // The product was withdrawn while the order was being put together.
    expect(
      walk(['24680'], { ...withCatalogue, placeOrder: { type: 'orderPlaced', order: null } }, confirm),
    ).toMatchObject({
      screen: 'accountHome',
      notice: { kind: 'noProducts' },
    });
  });

  it('lists the latest orders, paged, in the session language', () => {
    const orders = Array.from({ length: 6 }, (_, index) => ({
      orderNumber: `F00004${index}`,
      placedAt: '2026-11-03T08:00:00.000Z',
      quantity: 2,
      kind: 'pellets',
      sizeKg: 10,
      status: 'dispatched' as const,
    }));
    const mine = walk(['5'], { ...defaults, loadOrders: { type: 'ordersLoaded', orders } }, home);
    expect(mine.screen).toBe('myOrders');
    expect(text(mine)).toMatch(/^CON My orders\nF000040 Nov 3: 2 x Pellets 10 kg, on its way\n/);
    expect(renderer.pageCount(mine)).toBeGreaterThan(1);
    expect(walk(['98'], defaults, mine).page).toBe(1);
    const french = walk(
      ['5'],
      { ...defaults, loadOrders: { type: 'ordersLoaded', orders } },
      { ...home, language: 'fr' },
    );
    expect(text(french)).toMatch(/^CON Mes commandes\nF000040 3 nov\. : 2 x Granulés 10 kg, en route\n/);
    expect(text(walk(['5'], defaults, home))).toBe(
      'CON My orders\nYou have no orders yet.\n0. Back\n00. Main menu\n*. Exit',
    );
  });

  it.each<[MenuState, Partial<MenuState>]>([
    [
      {
        screen: 'orderProduct',
        catalogue: CATALOGUE,
        order: {
          lastDeliveryPoint: null,
          productCode: 'pellets-10kg',
          quantity: 2,
          deliveryPoint: 'Kibera market',
        },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      { screen: 'accountHome' },
    ],
    [
      {
        screen: 'orderQuantity',
        catalogue: CATALOGUE,
        order: {
          lastDeliveryPoint: null,
          productCode: 'pellets-10kg',
          quantity: 2,
          deliveryPoint: 'Kibera market',
        },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      { screen: 'orderProduct', order: { lastDeliveryPoint: null } },
    ],
    [
      {
        screen: 'orderDelivery',
        catalogue: CATALOGUE,
        order: {
          lastDeliveryPoint: null,
          productCode: 'pellets-10kg',
          quantity: 2,
          deliveryPoint: 'Kibera market',
        },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      { screen: 'orderQuantity', order: { lastDeliveryPoint: null, productCode: 'pellets-10kg' } },
    ],
    [
      {
        screen: 'orderConfirm',
        catalogue: CATALOGUE,
        order: {
          lastDeliveryPoint: null,
          productCode: 'pellets-10kg',
          quantity: 2,
          deliveryPoint: 'Kibera market',
        },
        auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' },
      },
      {
        screen: 'orderDelivery',
        order: { lastDeliveryPoint: null, productCode: 'pellets-10kg', quantity: 2 },
      },
    ],
    [
      { screen: 'myOrders', orders: [], page: 0, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'accountHome' },
    ],
    [
      { screen: 'myOrders', orders: [], page: 1, auth: { customerId: 'C0A1B2C3D', firstName: 'Jane' } },
      { screen: 'myOrders', page: 0 },
    ],
  ])('goes back with 0 from %j', (from, to) => {
    expect(applyInput(from, '0', renderer).state).toMatchObject(to);
  });
});
