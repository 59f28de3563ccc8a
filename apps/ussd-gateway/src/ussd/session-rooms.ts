import type { ThrottlerStorage } from '@nestjs/throttler';
import type { MenuState } from '../menus/menu-machine';
import { MemoryPhoneLanguageCopyStore } from '../phone-languages/memory-phone-language-copy';
import type { PhoneLanguageCopyStore } from '../phone-languages/phone-language-copy';
import { RedisPhoneLanguageCopyStore } from '../phone-languages/redis-phone-language-copy';
import type { RedisClient } from '../redis/redis-client';
import { MemorySessionStore } from '../sessions/memory-session.store';
import { RedisSessionStore } from '../sessions/redis-session.store';
import type { SessionStore } from '../sessions/session-store';
import { HopOpener, SequentialHopOpener } from './hop-opener';
import { RedisHopOpener } from './redis-hop-opener';

/** The session store, the phone-language copy, and the hop opener that puts them together with the rate-limit counts. */
export interface SessionRooms {
  sessions: SessionStore<MenuState>;
  copy: PhoneLanguageCopyStore;
  opener: HopOpener;
}

/** On Redis (one node, Sentinel or a cluster) under `prefix`: every instance shares sessions, locks, copy and counters. */
export function redisSessionRooms(redis: RedisClient, prefix: string, now?: () => number): SessionRooms {
  const sessions = new RedisSessionStore<MenuState>(redis, prefix, now);
  const copy = new RedisPhoneLanguageCopyStore(redis, prefix, now);
  return { sessions, copy, opener: new RedisHopOpener(redis, prefix, sessions, copy) };
}

/** The zero-config rooms (no Redis): process memory, hops counted in `counter` (the one the other endpoints use). */
export function memorySessionRooms(
  counter: Pick<ThrottlerStorage, 'increment'>,
  now?: () => number,
): SessionRooms {
  const sessions = new MemorySessionStore<MenuState>(now);
  const copy = new MemoryPhoneLanguageCopyStore(now);
  return { sessions, copy, opener: new SequentialHopOpener(sessions, copy, counter) };
}
