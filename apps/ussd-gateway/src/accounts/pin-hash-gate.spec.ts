import { PinHashBusyError, pinHashGateFromConfig } from './pin-hash-gate';

const config = { PIN_HASH_CONCURRENCY: 1, PIN_HASH_QUEUE: 4, HOP_TIMEOUT_MS: 5000 };

/** A hash the test finishes by hand. */
function pendingHash(): { run: () => Promise<void>; finish: () => void; started: () => boolean } {
  let finish: () => void = () => undefined;
  let started = false;
  return {
    run: () => {
      started = true;
      return new Promise<void>((resolve) => (finish = resolve));
    },
    finish: () => finish(),
    started: () => started,
  };
}

describe('pinHashGateFromConfig', () => {
  it('runs PIN_HASH_CONCURRENCY hashes at once; the next ones wait, in arrival order', async () => {
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_CONCURRENCY: 2 });
    const hashes = [pendingHash(), pendingHash(), pendingHash()];
    const runs = hashes.map((hash) => gate.run(hash.run));
    expect(hashes.map((hash) => hash.started())).toEqual([true, true, false]);
    hashes[1]!.finish();
    await runs[1];
    expect(hashes[2]!.started()).toBe(true);
    hashes[0]!.finish();
    hashes[2]!.finish();
    await Promise.all(runs);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('refuses past PIN_HASH_QUEUE with the busy error', () => {
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_QUEUE: 1 });
    void gate.run(pendingHash().run);
    void gate.run(pendingHash().run);
    expect(() => gate.admit()).toThrow(PinHashBusyError);
  });

  it('queues while the expected wait stays within four fifths of the hop budget, and refuses past it', () => {
    // Before any hash is timed each is assumed to take 50 ms: with one slot, the 80th waiting hash starts after
    // 80 × 50 ms = 4 s, four fifths of the 5 s budget; the next would wait past it.
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_QUEUE: 500 });
    void gate.run(pendingHash().run);
    for (let waiting = 1; waiting <= 80; waiting += 1) void gate.run(pendingHash().run);
    expect({ active: gate.active, queued: gate.queued, expectedWaitMs: gate.expectedWaitMs }).toEqual({
      active: 1,
      queued: 80,
      expectedWaitMs: 4050,
    });
    expect(() => gate.admit()).toThrow(PinHashBusyError);
  });
});
