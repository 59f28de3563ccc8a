import type { ThrottlerStorage } from '@nestjs/throttler';
import type { MenuState } from '../menus/menu-machine';
import type { PhoneLanguageCopy, PhoneLanguageCopyStore } from '../phone-languages/phone-language-copy';
import { countHop, HopCounts, HopHits, isRefused } from '../rate-limit/hop-count';
import type { LockOptions, SessionLease, SessionRecord, SessionStore } from '../sessions/session-store';

/** A USSD session's record: the menu machine's state, kept by the session store. */
export type UssdSessionRecord = SessionRecord<MenuState>;

export interface OpenOptions extends LockOptions, HopHits {
  /** When the session does not exist yet (a dial), the hop also reads this phone's language copy. */
  phoneNumber?: string;
}

export interface OpenedHop extends HopCounts {
  /** The locked session; absent when a count is past its limit (no lock taken). */
  lease?: SessionLease<MenuState>;
  /** With `OpenOptions.phoneNumber` and no record yet: what the language copy says of that phone. */
  phoneLanguage?: PhoneLanguageCopy;
}

/**
 * Starts one hop, putting three rooms together: counts the hop against its rate limits (rate-limit/), and unless a
 * count is past its limit, locks and reads the session (sessions/), and on a dial reads the phone's language copy
 * (phone-languages/). A hop waiting for the lock is counted once; a count past the limit takes no lock (no `lease`).
 * Rejects with SessionBusyError when the lock is not free within `waitMs`. An abstract class, so it is its own
 * injection token.
 */
export abstract class HopOpener {
  abstract open(sessionId: string, options: OpenOptions): Promise<OpenedHop>;
}

/** The lease, with the copy's answer read after it; the lease is given back when that read fails. */
export async function withPhoneLanguage(
  opened: HopCounts & { lease: SessionLease<MenuState> },
  read: () => Promise<PhoneLanguageCopy>,
): Promise<OpenedHop> {
  try {
    return { ...opened, phoneLanguage: await read() };
  } catch (error) {
    await opened.lease.release();
    throw error;
  }
}

/** One command per room, in turn: for process memory, where a round trip costs nothing. */
export class SequentialHopOpener extends HopOpener {
  constructor(
    private readonly sessions: SessionStore<MenuState>,
    private readonly copy: PhoneLanguageCopyStore,
    private readonly counter: Pick<ThrottlerStorage, 'increment'>,
  ) {
    super();
  }

  async open(
    sessionId: string,
    { waitMs, signal, hit, sessionHit, phoneNumber }: OpenOptions,
  ): Promise<OpenedHop> {
    signal?.throwIfAborted();
    const counts = await countHop(this.counter, { hit, sessionHit });
    if (isRefused(counts)) return counts;
    const lease = await this.sessions.open(sessionId, { waitMs, signal });
    if (lease.record !== null || phoneNumber === undefined) return { ...counts, lease };
    return withPhoneLanguage({ ...counts, lease }, () => this.copy.readPhoneLanguage(phoneNumber));
  }
}
