import type { RedisClient } from '../redis/redis-client';
import { uniqueTokens } from '../redis/unique-tokens';
import { keyLayoutFor } from '../redis/key-layout';
import { redisScript } from '../redis/redis-script';
import { ReplayWhenReady } from '../redis/replay-when-ready';
import { PhoneLanguageCopy, PhoneLanguageCopyStore, PhoneLanguageEntry } from './phone-language-copy';

// The copy is one hash: a field per phone that chose a language (E.164, so never a mark's name), the complete mark
// once a fill from PostgreSQL has finished (a phone absent from a complete copy never chose), and the fill's own mark
// while one runs ("token:time"). Losing the hash (expiry, eviction, FLUSHALL) loses the marks with it, so a lost copy
// is never taken for a complete one.
const COMPLETE_MARK = '!complete';
const FILLING_MARK = '!filling';

/**
 * Reads one phone's field and the complete mark, for `copyOf`. A Lua function, so that a dial reads the copy in the
 * script that locks its session (one node only: on a cluster the copy lives in a slot of its own).
 */
export const READ_COPY_LUA = `
local function read_copy(copy_key, phone)
  return redis.call('HMGET', copy_key, phone, '${COMPLETE_MARK}')
end`;
const REMEMBER_PHONE_LANGUAGE = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return 1`;
const BEGIN_FILL = `
if redis.call('HEXISTS', KEYS[1], '${COMPLETE_MARK}') == 1 then return 0 end
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if filling then
  local at = tonumber(string.match(filling, ':(%d+)$'))
  if at and at > tonumber(ARGV[2]) - tonumber(ARGV[3]) then return 0 end
end
redis.call('HSET', KEYS[1], '${FILLING_MARK}', ARGV[1] .. ':' .. ARGV[2])
if redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[4]) end
return 1`;
// HSETNX: a phone whose change was written since its batch was read keeps the change.
const FILL_BATCH = `
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if not filling or string.sub(filling, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
for at = 3, #ARGV, 2 do redis.call('HSETNX', KEYS[1], ARGV[at], ARGV[at + 1]) end
redis.call('HSET', KEYS[1], '${FILLING_MARK}', ARGV[1] .. ':' .. ARGV[2])
return 1`;
const COMPLETE_FILL = `
local filling = redis.call('HGET', KEYS[1], '${FILLING_MARK}')
if not filling or string.sub(filling, 1, #ARGV[1] + 1) ~= ARGV[1] .. ':' then return 0 end
redis.call('HDEL', KEYS[1], '${FILLING_MARK}')
redis.call('HSET', KEYS[1], '${COMPLETE_MARK}', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1`;
/** Bounds the memory kept for changes to write after an outage. */
const MAX_UNWRITTEN = 10_000;

/** What `read_copy` returned, as the copy's answer. */
export function copyOf(
  language: string | null | undefined,
  complete: string | null | undefined,
): PhoneLanguageCopy {
  if (language) return { kind: 'chosen', language };
  return complete ? { kind: 'none' } : { kind: 'unknown' };
}

/** The copy in one Redis hash (`RedisKeyLayout.phoneLanguages`), shared by every instance. */
export class RedisPhoneLanguageCopyStore extends PhoneLanguageCopyStore {
  /** The copy's key, named once (every dial's lock script passes it). */
  readonly key: string;
  private readonly rememberLanguage;
  private readonly beginFill;
  private readonly fillBatch;
  private readonly completeFill;
  private readonly nextToken = uniqueTokens();
  /** Language changes committed in PostgreSQL whose copy could not be written (Redis unreachable): written on 'ready'. */
  private readonly unwritten: ReplayWhenReady<{ language: string; ttlSeconds: number }>;

  constructor(
    private readonly redis: RedisClient,
    prefix: string,
    private readonly now: () => number = Date.now,
  ) {
    super();
    this.key = keyLayoutFor(redis, prefix).phoneLanguages();
    this.rememberLanguage = redisScript(redis, 'ussdRememberPhoneLanguage', REMEMBER_PHONE_LANGUAGE, 1);
    this.beginFill = redisScript(redis, 'ussdBeginPhoneLanguageFill', BEGIN_FILL, 1);
    this.fillBatch = redisScript(redis, 'ussdFillPhoneLanguages', FILL_BATCH, 1);
    this.completeFill = redisScript(redis, 'ussdCompletePhoneLanguageFill', COMPLETE_FILL, 1);
    this.unwritten = new ReplayWhenReady(redis, MAX_UNWRITTEN, (phoneNumber, { language, ttlSeconds }) =>
      this.rememberPhoneLanguage(phoneNumber, language, ttlSeconds),
    );
  }

  async rememberPhoneLanguage(phoneNumber: string, language: string, ttlSeconds: number): Promise<void> {
    try {
      await this.rememberLanguage(this.key, phoneNumber, language, ttlSeconds);
      this.unwritten.forget(phoneNumber);
    } catch (error) {
      // PostgreSQL has the change already; the copy catches up as soon as Redis answers again (or with its expiry).
      this.unwritten.keep(phoneNumber, { language, ttlSeconds });
      throw error;
    }
  }

  async readPhoneLanguage(phoneNumber: string): Promise<PhoneLanguageCopy> {
    const [language, complete] = await this.redis.hmget(this.key, phoneNumber, COMPLETE_MARK);
    return copyOf(language ?? undefined, complete ?? undefined);
  }

  async beginPhoneLanguageFill(staleAfterMs: number, ttlSeconds: number): Promise<string | null> {
    const token = this.nextToken();
    const begun = await this.beginFill(this.key, token, this.now(), staleAfterMs, ttlSeconds);
    return begun === 1 ? token : null;
  }

  async fillPhoneLanguages(token: string, entries: ReadonlyArray<PhoneLanguageEntry>): Promise<boolean> {
    const pairs = entries.flatMap((entry) => [entry.phoneNumber, entry.language]);
    return (await this.fillBatch(this.key, token, this.now(), ...pairs)) === 1;
  }

  async completePhoneLanguageFill(token: string, ttlSeconds: number): Promise<boolean> {
    return (await this.completeFill(this.key, token, this.now(), ttlSeconds)) === 1;
  }
}
