import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { AccountsService } from '../accounts/accounts.service';
import { PinHashBusyError } from '../accounts/pin-hash-gate';
import { MenuRenderer } from '../menus/menu-renderer';
import {
  afterStep,
  applyEffectResult,
  applyInput,
  Effect,
  EffectResult,
  isEnded,
  MenuState,
} from '../menus/menu-machine';
import { HouseholdsService } from '../orders/households.service';
import { HopMetrics } from './hop-metrics';
import type { PositionedInput } from './cumulative-text';
import type { ResumedSession } from './hop-resume';
import { PhoneLanguages } from './phone-languages';
import { SessionDigests } from './session-digests';

/**
 * A PIN write refused by the hash gate (nothing hashed, nothing written) is an answer, the busy END text, like a
 * log-in shed for load; any other failure stays a failure ("unavailable").
 */
async function busyWhenShed(write: () => Promise<EffectResult>): Promise<EffectResult> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof PinHashBusyError) return { type: 'hashBusy' };
    throw error;
  }
}

/**
 * What an effect needs besides itself: the request, where its input ends in `text`, the hop's deadline (its
 * `signal` is made on first use: a hop whose inputs ask for no effect makes none).
 */
export interface EffectContext {
  request: UssdSessionRequest;
  through: number;
  deadline: { readonly signal: AbortSignal; throwIfAborted(): void };
}

/** Runs a hop's inputs through the menu machine, performing the account work each asks for before the next step. */
@Injectable()
export class HopEffects {
  constructor(
    private readonly renderer: MenuRenderer,
    private readonly accounts: AccountsService,
    private readonly digests: SessionDigests,
    private readonly metrics: HopMetrics,
    private readonly households: HouseholdsService,
    private readonly phoneLanguages: PhoneLanguages,
  ) {}

  /**
   * The hop's new inputs in turn, from `resumed` (stopping at the end of the session), each held to the account's PIN
   * version as it stands (see afterStep). `deadline` is the hop's.
   */
  async applyAll(
    resumed: Pick<ResumedSession, 'state' | 'pinVersion'>,
    inputs: readonly PositionedInput[],
    request: UssdSessionRequest,
    deadline: EffectContext['deadline'],
  ): Promise<MenuState> {
    let { state, pinVersion } = resumed;
    for (const input of inputs) {
      if (isEnded(state)) break;
      const context: EffectContext = { request, through: input.through, deadline };
      let step = applyInput(state, input.value, this.renderer);
      while (step.effect) step = applyEffectResult(step.state, await this.perform(step.effect, context));
      ({ state, standing: pinVersion } = afterStep(state, step.state, pinVersion));
    }
    return state;
  }

  private async perform(effect: Effect, context: EffectContext): Promise<EffectResult> {
    const { request, deadline } = context;
    const key = (): string => this.digests.effect(effect, request, context.through);
    switch (effect.type) {
      case 'holdPin':
        return { type: 'held', heldPin: this.accounts.hold(effect.pin) };
      case 'matchPin':
        return { type: 'matched', match: this.accounts.matches(effect.pin, effect.heldPin) };
      case 'createAccount':
        return busyWhenShed(async () => ({
          type: 'created',
          customerId: await this.accounts.create(
            {
              phoneNumber: request.phoneNumber,
              fullName: effect.fullName,
              email: effect.email,
              heldPin: effect.heldPin,
              language: effect.language,
            },
            key(),
            deadline.signal,
          ),
        }));
      case 'verifyPin': {
        const attempt = { key: key(), sessionId: request.sessionId, phoneNumber: request.phoneNumber };
        const outcome = await this.accounts.verify(effect.customerId, effect.pin, attempt, deadline.signal);
        this.metrics.pinVerified(outcome);
        return { type: 'verified', outcome };
      }
      case 'loadAccount':
        return { type: 'loaded', account: await this.accounts.details(effect.customerId) };
      case 'replacePin':
        return busyWhenShed(async () => {
          const pinVersion = await this.accounts.replacePin(
            effect.customerId,
            effect.heldPin,
            key(),
            effect.expectedPinVersion,
            deadline.signal,
          );
          return { type: 'replaced', pinVersion };
        });
      case 'setLanguage':
        deadline.throwIfAborted();
        await this.phoneLanguages.remember(request.phoneNumber, effect.customerId, effect.language);
        return { type: 'languageSet', language: effect.language };
      case 'loadCatalogue':
      case 'placeOrder':
      case 'loadOrders':
      case 'createTicket':
        return this.households.perform(effect, {
          phoneNumber: request.phoneNumber,
          key: key(),
          signal: deadline.signal,
        });
    }
  }
}
