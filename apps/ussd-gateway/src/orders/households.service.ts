import { Injectable } from '@nestjs/common';
import { InjectPinoLogger, PinoLogger } from '@dmrv/logging';
import type { Effect, EffectResult } from '../menus/menu-machine';
import { orderNumber, ticketNumber } from '../domain/order-rules';
import { OrdersRepository } from './orders.repository';

/** The effects of the household menus (order fuel, my orders, report a problem). */
export type HouseholdEffect = Extract<
  Effect,
  { type: 'loadCatalogue' | 'placeOrder' | 'loadOrders' | 'createTicket' }
>;

/** Orders shown on "My orders": a handset pages through them, and older ones are an operator's business. */
export const MY_ORDERS_SHOWN = 10;

/** Who asks: the session's phone and the idempotency key of the hop (see UssdSessionService.effectKey). */
export interface HouseholdCaller {
  phoneNumber: string;
  key: string;
  signal: AbortSignal;
}

/**
 * Performs the household effects. Writes carry the hop's key, so the aggregator's retry of a confirmation finds the
 * first order or ticket; none is started once the hop's budget is spent. Logs name the numbers, never the note or
 * anything the subscriber typed.
 */
@Injectable()
export class HouseholdsService {
  constructor(
    private readonly orders: OrdersRepository,
    @InjectPinoLogger(HouseholdsService.name) private readonly logger: PinoLogger,
  ) {}

  async perform(effect: HouseholdEffect, caller: HouseholdCaller): Promise<EffectResult> {
    switch (effect.type) {
      case 'loadCatalogue': {
        const [products, lastDeliveryPoint] = await Promise.all([
          this.orders.activeProducts(),
          this.orders.lastDeliveryPoint(effect.customerId),
        ]);
        return { type: 'catalogueLoaded', products, lastDeliveryPoint };
      }
      case 'placeOrder': {
        caller.signal.throwIfAborted();
        const placed = await this.orders.placeOrder({
          ...effect,
          phoneNumber: caller.phoneNumber,
          key: caller.key,
        });
        if (placed)
          this.logger.info(
            { customerId: effect.customerId, orderNumber: orderNumber(placed.id) },
            'order placed',
          );
        return {
          type: 'orderPlaced',
          order: placed && {
            orderNumber: orderNumber(placed.id),
            totalMinor: placed.totalMinor,
            currency: placed.currency,
          },
        };
      }
      case 'loadOrders': {
        const lines = await this.orders.recentOrders(effect.customerId, MY_ORDERS_SHOWN);
        return {
          type: 'ordersLoaded',
          orders: lines.map(({ id, ...line }) => ({ orderNumber: orderNumber(id), ...line })),
        };
      }
      case 'createTicket': {
        caller.signal.throwIfAborted();
        const id = await this.orders.createTicket({
          ...effect,
          phoneNumber: caller.phoneNumber,
          key: caller.key,
        });
        if (id !== null)
          this.logger.info(
            { customerId: effect.customerId, ticketNumber: ticketNumber(id) },
            'ticket opened',
          );
        return { type: 'ticketCreated', ticketNumber: id === null ? null : ticketNumber(id) };
      }
    }
  }
}
