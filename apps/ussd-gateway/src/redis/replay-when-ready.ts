import type { RedisClient } from './redis-client';

/**
 * Writes Redis could not take (it was unreachable), kept by key and done again once, as soon as the client is ready
 * again; one that fails then is dropped (its caller bounds the harm: a lock's expiry, a copy's). At most `max` are
 * kept, so an outage cannot grow memory without bound; a key kept twice keeps the newer write.
 */
export class ReplayWhenReady<V> {
  private readonly pending = new Map<string, V>();

  constructor(
    redis: RedisClient,
    private readonly max: number,
    private readonly replay: (key: string, value: V) => Promise<unknown>,
  ) {
    redis.on('ready', () => void this.replayAll());
  }

  keep(key: string, value: V): void {
    if (this.pending.size < this.max) this.pending.set(key, value);
  }

  /** The write went through after all: nothing to do again. */
  forget(key: string): void {
    this.pending.delete(key);
  }

  private async replayAll(): Promise<void> {
    for (const [key, value] of [...this.pending]) {
      this.pending.delete(key);
      await this.replay(key, value).catch(() => undefined);
    }
  }
}
