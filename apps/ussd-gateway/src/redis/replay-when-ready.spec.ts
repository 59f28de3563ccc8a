import { EventEmitter } from 'node:events';
import type { RedisClient } from './redis-client';
import { ReplayWhenReady } from './replay-when-ready';

describe('ReplayWhenReady', () => {
  const client = (): EventEmitter & RedisClient => new EventEmitter() as EventEmitter & RedisClient;

  it('does each kept write again once the client is ready, the newer of a key kept twice, then forgets it', async () => {
    const redis = client();
    const done: Array<[string, number]> = [];
    let replayed!: () => void;
    const finished = new Promise<void>((resolve) => (replayed = resolve));
    const writes = new ReplayWhenReady<number>(redis, 10, async (key, value) => {
      done.push([key, value]);
      if (done.length === 2) replayed();
    });
    writes.keep('a', 1);
    writes.keep('b', 2);
    writes.keep('a', 3);
    redis.emit('ready');
    await finished;
    expect(done).toEqual([
      ['a', 3],
      ['b', 2],
    ]);
    // Nothing is kept any more: a second 'ready' does nothing (one turn of the loop is all a replay would need).
    redis.emit('ready');
    await new Promise(setImmediate);
    expect(done).toHaveLength(2);
  });

  it('keeps at most `max`, skips what was forgotten, and drops a write that fails again', async () => {
    const redis = client();
    const tried: string[] = [];
    let replayed!: () => void;
    const finished = new Promise<void>((resolve) => (replayed = resolve));
    const writes = new ReplayWhenReady<number>(redis, 2, async (key) => {
      tried.push(key);
      replayed();
      throw new Error('still unreachable');
    });
    writes.keep('a', 1);
    writes.keep('b', 2);
    writes.keep('c', 3);
    writes.forget('b');
    redis.emit('ready');
    await finished;
    expect(tried).toEqual(['a']);
    redis.emit('ready');
    await new Promise(setImmediate);
    expect(tried).toEqual(['a']);
  });
});
