import {
  hashConcurrencyFor,
  LOOP_SAMPLE_MS,
  LoopUtilisation,
  PinHashBusyError,
  pinHashGateFromConfig,
} from './pin-hash-gate';

const config = {
  PIN_HASH_CONCURRENCY: 1,
  PIN_HASH_CONCURRENCY_IDLE: 2,
  PIN_HASH_QUEUE: 4,
  HOP_TIMEOUT_MS: 5000,
};

/** A loop whose utilisation the test sets. */
function loopAt(utilisation: number): { current: () => number; set: (value: number) => void } {
  let value = utilisation;
  return { current: () => value, set: (next) => (value = next) };
}

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

describe('PIN hash concurrency', () => {
  it.each([
    [0, 2],
    [0.3, 2],
    [0.49, 2],
    [0.5, 1],
    [0.95, 1],
  ])('at a loop utilisation of %p runs %p hashes at once (busy 1, idle 2)', (utilisation, expected) => {
    expect(hashConcurrencyFor(utilisation, { busy: 1, idle: 2 })).toBe(expected);
  });

  it('never goes below the busy limit, whatever the idle one says', () => {
    expect(hashConcurrencyFor(0, { busy: 3, idle: 2 })).toBe(3);
  });
});

describe('LoopUtilisation', () => {
  it('reads the share of time the loop ran callbacks since the last sample, at most once per period', () => {
    const samples = [
      { idle: 0, active: 0 },
      { idle: 80, active: 20 },
      { idle: 90, active: 110 },
    ];
    let reads = 0;
    let now = 0;
    const loop = new LoopUtilisation(
      () => samples[Math.min(reads++, samples.length - 1)]!,
      () => now,
      LOOP_SAMPLE_MS,
    );

    expect(loop.current()).toBe(0);
    now = LOOP_SAMPLE_MS;
    expect(loop.current()).toBeCloseTo(0.2);
    now += LOOP_SAMPLE_MS / 2;
    expect(loop.current()).toBeCloseTo(0.2);
    expect(reads).toBe(2);
    now += LOOP_SAMPLE_MS;
    expect(loop.current()).toBeCloseTo(0.9);
  });

  it('reads the real loop without failing (a number between 0 and 1)', () => {
    const loop = new LoopUtilisation(undefined, () => LOOP_SAMPLE_MS * 10);
    expect(loop.current()).toBeGreaterThanOrEqual(0);
    expect(loop.current()).toBeLessThanOrEqual(1);
  });
});

describe('pinHashGateFromConfig', () => {
  it('runs a second hash only while the loop has headroom', () => {
    const loop = loopAt(0.1);
    const gate = pinHashGateFromConfig(config, loop);
    expect(gate.concurrency).toBe(2);
    loop.set(0.8);
    expect(gate.concurrency).toBe(1);
  });

  it('keeps a fixed limit, without reading the loop, when the idle limit is not above the busy one', () => {
    const loop = { current: jest.fn(() => 0) };
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_CONCURRENCY_IDLE: 1 }, loop);
    expect(gate.concurrency).toBe(1);
    expect(loop.current).not.toHaveBeenCalled();
  });

  it('gives the freed core back to the loop when it gets busy: hashes beyond the busy limit wait, in arrival order', async () => {
    const loop = loopAt(0);
    const gate = pinHashGateFromConfig(config, loop);
    const hashes = [pendingHash(), pendingHash(), pendingHash(), pendingHash()];
    const runs = hashes.map((hash) => gate.run(hash.run));
    expect(hashes.map((hash) => hash.started())).toEqual([true, true, false, false]);

    loop.set(0.9);
    hashes[0]!.finish();
    await runs[0];
    // Two were running and the limit is now one: the freed slot is not passed on.
    expect(hashes.map((hash) => hash.started())).toEqual([true, true, false, false]);
    hashes[1]!.finish();
    await runs[1];
    expect(hashes.map((hash) => hash.started())).toEqual([true, true, true, false]);

    loop.set(0);
    hashes[2]!.finish();
    await runs[2];
    expect(hashes[3]!.started()).toBe(true);
    hashes[3]!.finish();
    await Promise.all(runs);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('refuses past the queue of the limit in force with the busy error', () => {
    const loop = loopAt(0.9);
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_QUEUE: 1 }, loop);
    void gate.run(pendingHash().run);
    void gate.run(pendingHash().run);
    expect(() => gate.admit()).toThrow(PinHashBusyError);
    loop.set(0);
    expect(() => gate.admit().release()).not.toThrow();
  });

  it('queues while the expected wait stays within four fifths of the hop budget, and refuses past it', () => {
    // Before any hash is timed each is assumed to take 50 ms: with one slot, the 80th waiting hash starts after
    // 80 × 50 ms = 4 s, four fifths of the 5 s budget; the next would wait past it.
    const gate = pinHashGateFromConfig({ ...config, PIN_HASH_CONCURRENCY: 1, PIN_HASH_CONCURRENCY_IDLE: 1, PIN_HASH_QUEUE: 500 }, loopAt(0.9));
    void gate.run(pendingHash().run);
    for (let waiting = 1; waiting <= 80; waiting += 1) void gate.run(pendingHash().run);
    expect({ active: gate.active, queued: gate.queued, expectedWaitMs: gate.expectedWaitMs }).toEqual({ active: 1, queued: 80, expectedWaitMs: 4050 });
    expect(() => gate.admit()).toThrow(PinHashBusyError);
  });
});
