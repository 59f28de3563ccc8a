import type { MenuState } from '../menus/menu-machine';
import type { HopCounts, HopHits } from '../rate-limit/hop-count';
import type { LockOptions, SessionLease } from '../sessions/session-store';

/**
 * What a session-end notification needs of the hop: count it as a hop is counted and, unless a count is past its
 * limit, lock and read its session. The ussd module provides it (its HopOpener); an abstract class, so it is its own
 * injection token and events/ never imports the hop.
 */
export abstract class SessionEndOpener {
  abstract open(
    sessionId: string,
    options: LockOptions & HopHits,
  ): Promise<HopCounts & { lease?: SessionLease<MenuState> }>;
}
