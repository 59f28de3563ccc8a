import { AdmissionGate } from './admission-gate';

class GateFullError extends Error {}

/** A task the test finishes by hand. */
function pendingTask(): { run: () => Promise<boolean>; finish: () => void; started: () => boolean } {
  let finish: () => void = () => undefined;
  let started = false;
  return {
    run: () => {
      started = true;
      return new Promise<boolean>((resolve) => (finish = () => resolve(true)));
    },
    finish: () => finish(),
    started: () => started,
  };
}

const gate = (
  concurrency: number,
  queueLimit: number,
  extra: { maxWaitMs?: number; initialTaskMs?: number } = {},
) => new AdmissionGate({ concurrency, queueLimit, ...extra, refuse: () => new GateFullError() });

describe('AdmissionGate', () => {
  it('runs up to its concurrency, queues up to its limit and refuses the rest at once', async () => {
    const hashes = gate(2, 1);
    const tasks = [pendingTask(), pendingTask(), pendingTask()];
    const results = tasks.map((task) => hashes.run(task.run));
    expect(tasks.map((task) => task.started())).toEqual([true, true, false]);
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 2, queued: 1 });
    expect(() => hashes.admit()).toThrow(GateFullError);

    tasks[0]!.finish();
    await results[0];
    await Promise.resolve();
    expect(tasks[2]!.started()).toBe(true);
    tasks[1]!.finish();
    tasks[2]!.finish();
    await Promise.all(results);
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('starts waiting tasks in arrival order, never letting a later one overtake', async () => {
    const hashes = gate(1, 3);
    const order: string[] = [];
    const first = pendingTask();
    const running = hashes.run(first.run);
    const queued = ['b', 'c', 'd'].map((name) => hashes.run(async () => void order.push(name)));
    first.finish();
    await Promise.all([running, ...queued]);
    expect(order).toEqual(['b', 'c', 'd']);
  });

  it('counts an admitted pass against the queue until it is run or released', async () => {
    const hashes = gate(1, 0);
    const pass = hashes.admit();
    expect(hashes.queued).toBe(1);
    expect(() => hashes.admit()).toThrow(GateFullError);
    pass.release();
    pass.release();
    expect(hashes.queued).toBe(0);
    await expect(hashes.run(() => Promise.resolve('ran'))).resolves.toBe('ran');
    expect(() => {
      const used = hashes.admit();
      used.release();
      void used.run(() => Promise.resolve(1));
    }).toThrow('an admission pass is used once');
  });

  it('refuses a task whose expected wait passes maxWaitMs even with room in the queue', () => {
    const hashes = gate(1, 100, { maxWaitMs: 120, initialTaskMs: 50 });
    void hashes.run(pendingTask().run);
    expect(hashes.expectedWaitMs).toBe(50);
    void hashes.run(pendingTask().run);
    expect(hashes.expectedWaitMs).toBe(100);
    void hashes.run(pendingTask().run);
    expect(hashes.expectedWaitMs).toBe(150);
    expect(() => hashes.admit()).toThrow(GateFullError);
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 1, queued: 2 });
  });

  it('frees the slot of a task that fails', async () => {
    const hashes = gate(1, 0);
    await expect(hashes.run(() => Promise.reject(new Error('scrypt failed')))).rejects.toThrow(
      'scrypt failed',
    );
    await expect(hashes.run(() => Promise.resolve(true))).resolves.toBe(true);
  });

  it('never runs more than its concurrency and starts tasks in arrival order, while tasks finish in any order', async () => {
    const hashes = gate(3, 100);
    const started: number[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const finishers: Array<() => void> = [];
    const runs = Array.from({ length: 40 }, (_, index) =>
      hashes.run(async () => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        started.push(index);
        await new Promise<void>((resolve) => finishers.push(resolve));
        running -= 1;
      }),
    );
    for (let round = 0; finishers.length > 0 || started.length < runs.length; round += 1) {
      finishers.splice((round * 7) % Math.max(1, finishers.length), 1)[0]?.();
      await new Promise((resolve) => setImmediate(resolve));
      if (round > 1000) throw new Error('the gate stalled');
    }
    await Promise.all(runs);

    expect({ mostAtOnce, order: started }).toEqual({
      mostAtOnce: 3,
      order: Array.from({ length: 40 }, (_, index) => index),
    });
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 0, queued: 0 });
  });
});
