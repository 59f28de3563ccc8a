import { EventEmitter } from 'node:events';
import type { ChangeListener } from '../database/change-listener';
import { RECORD_CHANNEL, ROLLUP_CHANNEL } from '../database/change-listener';
import { followRecordChanges, RecordAnswerCache } from './record-answer-cache';

/** A listener that only emits what the test says: the real one's state machine has its own spec. */
function fakeListener(): ChangeListener & EventEmitter {
  return Object.assign(new EventEmitter(), { state: 'idle' }) as unknown as ChangeListener & EventEmitter;
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

describe('RecordAnswerCache', () => {
  const live = (maxEntries = 10) => {
    const listener = fakeListener();
    const cache = followRecordChanges(new RecordAnswerCache<number>({ maxEntries }), listener);
    listener.emit('live');
    return { cache, listener };
  };

  it('computes once per table and key while the listener is live', async () => {
    const { cache } = live();
    const compute = jest.fn(() => Promise.resolve(7));
    expect(await cache.getOrCompute('fuel_purchases', '/list', 'a', compute)).toBe(7);
    expect(await cache.getOrCompute('fuel_purchases', '/list', 'a', compute)).toBe(7);
    expect(compute).toHaveBeenCalledTimes(1);
    await cache.getOrCompute('fuel_purchases', '/list', 'b', compute);
    await cache.getOrCompute('devices', '/list', 'a', compute);
    expect(compute).toHaveBeenCalledTimes(3);
  });

  it('computes every time before the listener is live, once it is down and where notifications never arrive', async () => {
    const listener = fakeListener();
    const cache = followRecordChanges(new RecordAnswerCache<number>({ maxEntries: 10 }), listener);
    const compute = jest.fn(() => Promise.resolve(1));
    await cache.getOrCompute('devices', '/x', 'k', compute);
    await cache.getOrCompute('devices', '/x', 'k', compute);
    listener.emit('live');
    await cache.getOrCompute('devices', '/x', 'k', compute);
    listener.emit('down');
    expect(cache.size).toBe(0);
    await cache.getOrCompute('devices', '/x', 'k', compute);
    await cache.getOrCompute('devices', '/x', 'k', compute);
    listener.emit('unsupported');
    await cache.getOrCompute('devices', '/x', 'k', compute);
    expect(compute).toHaveBeenCalledTimes(6);
  });

  it("drops only the changed table's answers on its notification; other channels change nothing", async () => {
    const { cache, listener } = live();
    await cache.getOrCompute('devices', '/x', 'k', () => Promise.resolve(1));
    await cache.getOrCompute('fuel_purchases', '/x', 'k', () => Promise.resolve(2));
    listener.emit('notification', ROLLUP_CHANNEL, 'refresh');
    expect(cache.size).toBe(2);
    listener.emit('notification', RECORD_CHANNEL, 'devices');
    expect(cache.size).toBe(1);
    expect(await cache.getOrCompute('devices', '/x', 'k', () => Promise.resolve(3))).toBe(3);
    expect(await cache.getOrCompute('fuel_purchases', '/x', 'k', () => Promise.resolve(4))).toBe(2);
  });

  it("does not keep an answer computed across its table's change, or across the listener going away", async () => {
    const { cache, listener } = live();
    for (const interrupt of [
      () => listener.emit('notification', RECORD_CHANNEL, 'devices'),
      () => {
        listener.emit('down');
        listener.emit('live');
      },
    ]) {
      const read = deferred<number>();
      const answer = cache.getOrCompute('devices', '/x', 'k', () => read.promise);
      interrupt();
      read.resolve(1);
      expect(await answer).toBe(1);
      expect(cache.size).toBe(0);
    }
    // A change of another table does not stop the answer being kept.
    const read = deferred<number>();
    const answer = cache.getOrCompute('devices', '/x', 'k', () => read.promise);
    listener.emit('notification', RECORD_CHANNEL, 'households');
    read.resolve(2);
    await answer;
    expect(cache.size).toBe(1);
  });

  it('reads an answer it will keep through readFresh (the primary), and nothing else', async () => {
    const listener = fakeListener();
    const fresh: string[] = [];
    const cache = followRecordChanges(
      new RecordAnswerCache<string>({
        maxEntries: 10,
        readFresh: (work) => {
          fresh.push('primary');
          return work();
        },
      }),
      listener,
    );
    await cache.getOrCompute('devices', '/x', 'k', () => Promise.resolve('untrusted'));
    listener.emit('live');
    await cache.getOrCompute('devices', '/x', 'k', () => Promise.resolve('kept'));
    await cache.getOrCompute('devices', '/x', 'k', () => Promise.resolve('hit'));
    expect(fresh).toEqual(['primary']);
  });

  it('keeps at most maxEntries answers, dropping the oldest; 0 keeps none', async () => {
    const { cache } = live(2);
    for (const key of ['a', 'b', 'c'])
      await cache.getOrCompute('devices', '/x', key, () => Promise.resolve(0));
    expect(cache.size).toBe(2);
    const compute = jest.fn(() => Promise.resolve(0));
    await cache.getOrCompute('devices', '/x', 'a', compute);
    expect(compute).toHaveBeenCalledTimes(1);
    const off = live(0).cache;
    await off.getOrCompute('devices', '/x', 'a', () => Promise.resolve(0));
    expect(off.size).toBe(0);
  });
});
