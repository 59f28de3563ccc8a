import type { Language } from '../languages';
import { MAX_ORDER_QUANTITY, normalizeDeliveryPoint, parseQuantity } from '../../domain/order-rules';
import { isPinShaped } from '../menu-rules';
import { afterVerify, end, go, nextPage, numbered, previousPage, requireValue, stay } from './flow';
import type { EffectResult, Flow, MenuState, OrderScreen, Step } from './flow-types';

/** Ordering fuel (product, quantity, delivery point, PIN) and the latest orders. */

/** The way in from the signed-in menu, once the catalogue is loaded. */
export function enterOrder(
  state: MenuState,
  result: Extract<EffectResult, { type: 'catalogueLoaded' }>,
): Step {
  if (result.products.length === 0) return stay(state, { kind: 'noProducts' });
  return go(state, 'orderProduct', {
    catalogue: result.products,
    order: { lastDeliveryPoint: result.lastDeliveryPoint },
  });
}

/** The way in to "My orders", once they are loaded. */
export function showOrders(state: MenuState, result: Extract<EffectResult, { type: 'ordersLoaded' }>): Step {
  return go(state, 'myOrders', { orders: result.orders, page: 0 });
}

/** The order flow's state with its first `steps` choices (product, quantity, delivery point) kept. */
function orderSoFar(state: MenuState, steps: 0 | 1 | 2): Partial<MenuState> {
  const order = requireValue(state.order, 'order');
  const kept = [order.productCode, order.quantity, order.deliveryPoint].slice(0, steps);
  return {
    catalogue: state.catalogue,
    order: {
      lastDeliveryPoint: order.lastDeliveryPoint,
      productCode: kept[0] as string | undefined,
      quantity: kept[1] as number | undefined,
    },
  };
}

/** `Pellets 10 kg`: the kind by its content key (`product.<kind>`; the kind itself when a language has none). */
export function productName(language: Language, kind: string, sizeKg: number): string {
  return language.text('product.label', { kind: language.lookup(`product.${kind}`) ?? kind, size: sizeKg });
}

function chosenProduct(state: MenuState, language: Language): string {
  const product = state.catalogue?.find((item) => item.code === state.order?.productCode);
  return product ? productName(language, product.kind, product.sizeKg) : '';
}

export const orderFlow: Flow<OrderScreen> = {
  orderProduct: {
    input(state, input, context) {
      const paged = nextPage(state, input, context);
      if (paged) return paged;
      const product = /^\d{1,2}$/.test(input) ? state.catalogue?.[Number(input) - 1] : undefined;
      if (!product) return stay(state, { kind: 'invalidChoice' });
      return go(state, 'orderQuantity', {
        catalogue: state.catalogue,
        order: { ...requireValue(state.order, 'order'), productCode: product.code },
      });
    },
    back: (state) => previousPage(state, () => go(state, 'accountHome')),
    view: (state, { language, t, nav }) => ({
      kind: 'list',
      menu: {
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
      },
      hints: ['invalidChoice'],
    }),
  },
  orderQuantity: {
    input(state, input) {
      const quantity = parseQuantity(input);
      if (quantity === null) return stay(state, { kind: 'invalidQuantity' });
      return go(state, 'orderDelivery', {
        catalogue: state.catalogue,
        order: { ...requireValue(state.order, 'order'), quantity },
      });
    },
    back: (state) => go(state, 'orderProduct', orderSoFar(state, 0)),
    view: (state, { language, nav }) => ({
      kind: 'menu',
      menus: [
        {
          lines: [
            chosenProduct(state, language),
            language.text('order.quantityPrompt', { max: MAX_ORDER_QUANTITY }),
          ],
          options: [],
          nav: nav.deep,
        },
      ],
    }),
  },
  orderDelivery: {
    input(state, input) {
      const order = requireValue(state.order, 'order');
      const deliveryPoint =
        input === '1' && order.lastDeliveryPoint ? order.lastDeliveryPoint : normalizeDeliveryPoint(input);
      if (deliveryPoint === null) return stay(state, { kind: 'invalidDeliveryPoint' });
      return go(state, 'orderConfirm', { catalogue: state.catalogue, order: { ...order, deliveryPoint } });
    },
    back: (state) => go(state, 'orderQuantity', orderSoFar(state, 1)),
    view(state, { t, nav }) {
      const last = state.order?.lastDeliveryPoint;
      return {
        kind: 'menu',
        menus: [{ lines: [t('order.deliveryPrompt')], options: last ? [`1. ${last}`] : [], nav: nav.deep }],
      };
    },
  },
  orderConfirm: {
    input(state, input) {
      // The existing guarded PIN check (attempt reservation, lockout) confirms; the order is placed once it says ok.
      if (!isPinShaped(input)) return stay(state, { kind: 'invalidPin' });
      return {
        state,
        effect: { type: 'verifyPin', customerId: requireValue(state.auth, 'auth').customerId, pin: input },
      };
    },
    back: (state) => go(state, 'orderDelivery', orderSoFar(state, 2)),
    result(state, result) {
      if (result.type === 'orderPlaced') {
        if (result.order === null) return go(state, 'accountHome', { notice: { kind: 'noProducts' } });
        return end(state, { kind: 'orderPlaced', ...result.order });
      }
      if (result.type !== 'verified') return undefined;
      return afterVerify(state, result.outcome, () => {
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
      });
    },
    view(state, { language, nav }) {
      const order = state.order;
      const product = state.catalogue?.find((item) => item.code === order?.productCode);
      const quantity = order?.quantity ?? 0;
      const total = product ? language.amount(product.priceMinor * quantity, product.currency) : '';
      const values = {
        quantity,
        product: chosenProduct(state, language),
        total,
        point: order?.deliveryPoint ?? '',
      };
      // Without the delivery point (the subscriber just typed it) when the whole does not fit, as in UCS-2.
      return {
        kind: 'menu',
        menus: (['order.confirm', 'order.confirmShort'] as const).map((key) => ({
          lines: [language.text(key, values)],
          options: [],
          nav: nav.deep,
        })),
      };
    },
  },
  myOrders: {
    input: (state, input, context) =>
      nextPage(state, input, context) ?? stay(state, { kind: 'invalidChoice' }),
    back: (state) => previousPage(state, () => go(state, 'accountHome')),
    view(state, { language }) {
      const lines = (state.orders ?? []).map((order) =>
        language.text('orders.line', {
          orderNumber: order.orderNumber,
          date: language.date(order.placedAt),
          quantity: order.quantity,
          product: productName(language, order.kind, order.sizeKg),
          status: language.text(`status.${order.status}`),
        }),
      );
      return {
        kind: 'text',
        title: language.text('orders.title'),
        body: lines.length > 0 ? lines.join('\n') : language.text('orders.none'),
      };
    },
  },
};
