import type { MenuState } from '../menus/menu-machine';
import {
  copyOf,
  READ_COPY_LUA,
  RedisPhoneLanguageCopyStore,
} from '../phone-languages/redis-phone-language-copy';
import {
  COUNT_HOP_LUA,
  countHop,
  HopCounts,
  HopHits,
  hopCountArgs,
  hopCountKeys,
  hopCountsOf,
  isRefused,
} from '../rate-limit/hop-count';
import { RedisRateLimitStorage } from '../rate-limit/rate-limit.storage';
import type { RedisClient } from '../redis/redis-client';
import { redisScript } from '../redis/redis-script';
import { LOCK_AND_READ_LUA, LockKeys, LockTry, RedisSessionStore } from '../sessions/redis-session.store';
import { HopOpener, OpenedHop, OpenOptions, withPhoneLanguage } from './hop-opener';

// A hop's first script, made of the parts each room owns: the counts (rate-limit/hop-count.ts), the lock and the
// record (sessions/redis-session.store.ts), and on a dial the phone's language copy
// (phone-languages/redis-phone-language-copy.ts). The counts come before the lock: a refused request takes no lock.
// KEYS: lock, session, four counter keys, copy; ARGV: token, lock ms, six count arguments, phone ('' = none).
const COUNT_LOCK_AND_READ = `${COUNT_HOP_LUA}${LOCK_AND_READ_LUA}${READ_COPY_LUA}
local counts, refused = count_hop(KEYS[3], KEYS[4], KEYS[5], KEYS[6], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8])
if refused then return {0, counts} end
local acquired, record = lock_and_read(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
if acquired == 0 or record or ARGV[9] == '' then return {acquired, counts, record} end
return {acquired, counts, false, read_copy(KEYS[7], ARGV[9])}`;
// A dial's retry while another hop holds its session: counted already, so the lock and the copy only.
const LOCK_AND_READ_COPY = `${LOCK_AND_READ_LUA}${READ_COPY_LUA}
local acquired, record = lock_and_read(KEYS[1], KEYS[2], ARGV[1], ARGV[2])
if acquired == 0 or record then return {acquired, record} end
return {acquired, false, read_copy(KEYS[3], ARGV[3])}`;

/** The phone's field and the complete mark, as `read_copy` returns them after a missing record. */
type CopyReply = Array<string | null | undefined>;

/** What a try read besides the lock: the counts (first try only) and the copy (one node, dials only). */
interface HopRead {
  counts?: HopCounts;
  copy?: CopyReply;
}

/**
 * The hop on Redis in as few round trips as a read and a write can be. On one node the counts, the lock and read,
 * and a dial's copy are one script (then the session room's write-and-unlock). On a cluster a script may touch one
 * slot only: the counts (each in a slot of its own) are sent beside the session room's lock-and-read, all at once,
 * and a dial reads the copy (another slot) after the lock.
 */
export class RedisHopOpener extends HopOpener {
  private readonly countLockAndRead;
  private readonly lockAndReadCopy;
  /** On a cluster, the hop's rate-limit counts, each in its own slot. */
  private readonly counter: RedisRateLimitStorage;

  constructor(
    redis: RedisClient,
    prefix: string,
    private readonly sessions: RedisSessionStore<MenuState>,
    private readonly copy: RedisPhoneLanguageCopyStore,
  ) {
    super();
    this.counter = new RedisRateLimitStorage(redis, prefix);
    this.countLockAndRead = redisScript(redis, 'ussdCountLockAndRead', COUNT_LOCK_AND_READ, 7);
    this.lockAndReadCopy = redisScript(redis, 'ussdLockAndReadCopy', LOCK_AND_READ_COPY, 3);
  }

  async open(
    sessionId: string,
    { waitMs, signal, hit, sessionHit, phoneNumber }: OpenOptions,
  ): Promise<OpenedHop> {
    const hits: HopHits = { hit, sessionHit };
    const clustered = this.sessions.layout.clustered;
    // On a cluster the copy lives in a slot of its own: read after the lock, on dials only.
    const phone = clustered ? '' : (phoneNumber ?? '');
    const { first, last, lease } = await this.sessions.openWith<HopRead>(sessionId, {
      waitMs,
      signal,
      tryLock: (keys, token, lockMs, isFirst) => {
        if (!isFirst) return this.retry(keys, token, lockMs, phone);
        return clustered
          ? this.firstOnCluster(keys, token, lockMs, hits)
          : this.firstOnNode(keys, token, lockMs, hits, phone);
      },
    });
    const counts = first.counts!;
    if (!lease) return counts;
    if (lease.record !== null || phoneNumber === undefined) return { ...counts, lease };
    if (clustered)
      return withPhoneLanguage({ ...counts, lease }, () => this.copy.readPhoneLanguage(phoneNumber));
    return { ...counts, lease, phoneLanguage: copyOf(last.copy?.[0], last.copy?.[1]) };
  }

  private async firstOnNode(
    keys: LockKeys,
    token: string,
    lockMs: number,
    hits: HopHits,
    phone: string,
  ): Promise<LockTry<HopRead>> {
    const [acquired, reply, json, copy] = (await this.countLockAndRead(
      keys.lock,
      keys.session,
      ...hopCountKeys(this.sessions.layout, hits),
      this.copy.key,
      token,
      lockMs,
      ...hopCountArgs(hits),
      phone,
    )) as [number, number[], string | null | undefined, CopyReply | undefined];
    const counts = hopCountsOf(reply, hits);
    return { acquired: acquired === 1, json, refused: isRefused(counts), read: { counts, copy } };
  }

  private async firstOnCluster(
    keys: LockKeys,
    token: string,
    lockMs: number,
    hits: HopHits,
  ): Promise<LockTry<HopRead>> {
    const [counted, locked] = await Promise.allSettled([
      countHop(this.counter, hits),
      this.sessions.lockAndRead(keys, token, lockMs),
    ]);
    // Both settle first: a lock taken beside a failed count is given back by the session store.
    if (counted.status === 'rejected') throw counted.reason;
    if (locked.status === 'rejected') throw locked.reason;
    const counts = counted.value;
    return { ...locked.value, refused: isRefused(counts), read: { counts } };
  }

  private async retry(
    keys: LockKeys,
    token: string,
    lockMs: number,
    phone: string,
  ): Promise<LockTry<HopRead>> {
    if (phone === '') return { ...(await this.sessions.lockAndRead(keys, token, lockMs)), read: {} };
    const [acquired, json, copy] = (await this.lockAndReadCopy(
      keys.lock,
      keys.session,
      this.copy.key,
      token,
      lockMs,
      phone,
    )) as [number, string | null | undefined, CopyReply | undefined];
    return { acquired: acquired === 1, json, read: { copy } };
  }
}
