import { createHmac, createSecretKey, hkdfSync, type KeyObject } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { UssdSessionRequest } from '@dmrv/contracts';
import { parseKey } from '../accounts/pin-vault';
import { UssdConfig } from '../config/ussd.config';
import type { Effect } from '../menus/menu-machine';

/**
 * The keyed digests a session keeps instead of its `text` (which holds PINs), and the idempotency keys of the account
 * work its hops ask for. Keyed (from PIN_ENCRYPTION_KEY), so neither can be brute-forced back to the PINs (five
 * digits are only 100 000 guesses) by anyone without the key.
 */
@Injectable()
export class SessionDigests {
  // A KeyObject, not the Buffer: Node 24 makes a KeyObject of a Buffer key on every createHmac (about 20 µs a call).
  private readonly key: KeyObject;

  constructor(config: UssdConfig) {
    this.key = createSecretKey(
      Buffer.from(
        hkdfSync('sha256', parseKey(config.PIN_ENCRYPTION_KEY), 'ussd-session', 'cumulative-text digest', 32),
      ),
    );
  }

  readonly text = (text: string): string => createHmac('sha256', this.key).update(text).digest('base64url');

  /**
   * The idempotency key of `effect` asked for by the input that ends at `through` in `text`: the session, its phone
   * number and the whole text up to that input. A replay of the hop (the aggregator's retry after a failure) has the
   * same key and finds what the first run did; anyone else needs the exact text, PINs included.
   */
  effect(effect: Effect, request: UssdSessionRequest, through: number): string {
    return createHmac('sha256', this.key)
      .update(
        `effect\u0000${effect.type}\u0000${request.sessionId}\u0000${request.phoneNumber}\u0000${request.text.slice(0, through)}`,
      )
      .digest('base64url');
  }
}
