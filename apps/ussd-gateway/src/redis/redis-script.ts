import type Redis from 'ioredis';

export type RedisScript = (...keysThenArgs: Array<string | number>) => Promise<unknown>;

/**
 * A Lua script run by its SHA (EVALSHA): the script text crosses the wire once per connection instead of on every
 * call. ioredis sends EVAL the first time on each connection and falls back to it when Redis has lost its script
 * cache (a restart), so no call ever fails for want of a loaded script.
 */
export function redisScript(redis: Redis, name: string, lua: string, numberOfKeys: number): RedisScript {
  const commands = redis as unknown as Record<string, RedisScript | undefined>;
  if (commands[name] === undefined) redis.defineCommand(name, { lua, numberOfKeys });
  const command = commands[name]!;
  return (...keysThenArgs) => command.apply(redis, keysThenArgs);
}
