/** What households order and report, and how operators may move them along: pure, shared by menus, orders and operators. */

export const ORDER_STATUSES = ['placed', 'dispatched', 'delivered', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const TICKET_STATUSES = ['open', 'in_progress', 'resolved', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_CATEGORIES = ['wont_light', 'smoke', 'broken_part', 'other'] as const;
export type TicketCategory = (typeof TICKET_CATEGORIES)[number];

/** Where each status may go next; delivered and cancelled orders, and closed tickets, are final. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['dispatched', 'cancelled'],
  dispatched: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};

/** A resolved ticket can be reopened (the stove failed again) until it is closed. */
export const TICKET_TRANSITIONS: Readonly<Record<TicketStatus, readonly TicketStatus[]>> = {
  open: ['in_progress', 'resolved', 'closed'],
  in_progress: ['resolved', 'closed'],
  resolved: ['in_progress', 'closed'],
  closed: [],
};

export function canMove<S extends string>(
  transitions: Readonly<Record<S, readonly S[]>>,
  from: S,
  to: S,
): boolean {
  return transitions[from].includes(to);
}

export const MAX_ORDER_QUANTITY = 20;
export const DELIVERY_POINT_MAX = 40;
export const TICKET_NOTE_MAX = 80;

/** What a household reads out over the phone: a letter and six digits (`F000042`, `T000007`). */
export const orderNumber = (id: number | string): string => `F${String(id).padStart(6, '0')}`;
export const ticketNumber = (id: number | string): string => `T${String(id).padStart(6, '0')}`;

/** `F000042` → 42; null for anything else. */
export function idOfNumber(prefix: 'F' | 'T', value: string): number | null {
  const match = new RegExp(`^${prefix}(\\d{6,15})$`).exec(value);
  return match ? Number(match[1]) : null;
}

/** 1…MAX_ORDER_QUANTITY bags, digits only. */
export function parseQuantity(input: string): number | null {
  if (!/^\d{1,3}$/.test(input)) return null;
  const quantity = Number(input);
  return quantity >= 1 && quantity <= MAX_ORDER_QUANTITY ? quantity : null;
}

const DELIVERY_POINT = /^[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N} ,.'’/-]*$/u;

/** A village, street or landmark: 3…40 letters, digits, spaces and `,.'/-`; returns it tidied, or null. */
export function normalizeDeliveryPoint(input: string): string | null {
  const point = input.trim().replace(/\s+/g, ' ').normalize('NFC');
  const length = [...point].length;
  if (length < 3 || length > DELIVERY_POINT_MAX) return null;
  return DELIVERY_POINT.test(point) ? point : null;
}

/** A short free text: printable, at most TICKET_NOTE_MAX characters; returns it tidied, or null. */
export function normalizeNote(input: string): string | null {
  const note = input.trim().replace(/\s+/g, ' ').normalize('NFC');
  const length = [...note].length;
  if (length < 1 || length > TICKET_NOTE_MAX || /\p{C}/u.test(note)) return null;
  return note;
}
