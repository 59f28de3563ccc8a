import type { ChildSpan } from '@dmrv/tracing';
import type { RedisClient } from './redis-client';

export type RedisScript = (...keysThenArgs: Array<string | number>) => Promise<unknown>;

/** Told about every script call of a client: its latency (metrics) and, with tracing on, a span around it. */
export interface RedisScriptObserver {
  /** With tracing on: a span for the call, child of the current request's span. */
  startSpan?(script: string): ChildSpan | undefined;
  finished(script: string, seconds: number, failed: boolean): void;
}

const observers = new WeakMap<RedisClient, RedisScriptObserver>();

/** Times (and traces) every script call made through `redisScript` on this client, whenever it was defined. */
export function observeRedisScripts(redis: RedisClient, observer: RedisScriptObserver): void {
  observers.set(redis, observer);
}

/**
 * A Lua script run by its SHA (EVALSHA): the script text crosses the wire once per connection instead of on every
 * call. ioredis sends EVAL the first time on each connection and falls back to it when Redis has lost its script
 * cache (a restart), so no call ever fails for want of a loaded script.
 */
export function redisScript(
  redis: RedisClient,
  name: string,
  lua: string,
  numberOfKeys: number,
): RedisScript {
  const commands = redis as unknown as Record<string, RedisScript | undefined>;
  if (commands[name] === undefined) redis.defineCommand(name, { lua, numberOfKeys });
  const command = commands[name]!;
  return (...keysThenArgs) => {
    const observer = observers.get(redis);
    if (observer === undefined) return command.apply(redis, keysThenArgs);
    const span = observer.startSpan?.(name);
    const started = performance.now();
    const call = command.apply(redis, keysThenArgs);
    call.then(
      () => {
        observer.finished(name, (performance.now() - started) / 1000, false);
        span?.end();
      },
      (error: unknown) => {
        observer.finished(name, (performance.now() - started) / 1000, true);
        span?.end(error instanceof Error ? error.name : 'script failed');
      },
    );
    return call;
  };
}
