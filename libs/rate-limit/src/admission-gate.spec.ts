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

  it('follows a limit that changes: waiting tasks start as soon as it rises, none starts while it is passed', async () => {
    let limit = 1;
    const hashes = new AdmissionGate({
      concurrency: () => limit,
      queueLimit: 10,
      refuse: () => new GateFullError(),
    });
    const tasks = [pendingTask(), pendingTask(), pendingTask(), pendingTask()];
    const results = tasks.slice(0, 3).map((task) => hashes.run(task.run));
    expect(tasks.map((task) => task.started())).toEqual([true, false, false, false]);

    limit = 2;
    results.push(hashes.run(tasks[3]!.run));
    await Promise.resolve();
    // The rise let the oldest waiter start, not the newcomer.
    expect(tasks.map((task) => task.started())).toEqual([true, true, false, false]);
    expect(hashes.active).toBe(2);

    limit = 1;
    tasks[0]!.finish();
    await results[0];
    await Promise.resolve();
    expect({ active: hashes.active, started: tasks.map((task) => task.started()) }).toEqual({
      active: 1,
      started: [true, true, false, false],
    });
    tasks[1]!.finish();
    await results[1];
    await Promise.resolve();
    expect(tasks.map((task) => task.started())).toEqual([true, true, true, false]);
    tasks[2]!.finish();
    await results[2];
    await Promise.resolve();
    tasks[3]!.finish();
    await Promise.all(results);
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('counts the expected wait and the queue room against the limit in force', () => {
    let limit = 1;
    const hashes = new AdmissionGate({
      concurrency: () => limit,
      queueLimit: 1,
      initialTaskMs: 50,
      refuse: () => new GateFullError(),
    });
    void hashes.run(pendingTask().run);
    void hashes.run(pendingTask().run);
    expect(hashes.expectedWaitMs).toBe(100);
    expect(() => hashes.admit()).toThrow(GateFullError);
    limit = 2;
    expect(hashes.expectedWaitMs).toBe(50);
    expect(() => hashes.admit().release()).not.toThrow();
  });

  it('never runs more than the limit of the moment, and starts tasks in arrival order, while tasks finish in any order and the limit moves', async () => {
    let limit = 2;
    const hashes = new AdmissionGate({
      concurrency: () => limit,
      queueLimit: 100,
      refuse: () => new GateFullError(),
    });
    const started: number[] = [];
    let running = 0;
    let overLimit = 0;
    const finishers: Array<() => void> = [];
    const runs = Array.from({ length: 40 }, (_, index) =>
      hashes.run(async () => {
        running += 1;
        if (running > limit) overLimit += 1;
        started.push(index);
        await new Promise<void>((resolve) => finishers.push(resolve));
        running -= 1;
      }),
    );
    // Finish whatever runs in a scrambled order, moving the limit between 1 and 3 as the loop's load would.
    for (let round = 0; finishers.length > 0 || started.length < runs.length; round += 1) {
      limit = [1, 3, 2][round % 3]!;
      const picked = finishers.splice((round * 7) % Math.max(1, finishers.length), 1)[0];
      picked?.();
      await new Promise((resolve) => setImmediate(resolve));
      if (round > 1000) throw new Error('the gate stalled');
    }
    await Promise.all(runs);

    expect({ overLimit, order: started }).toEqual({
      overLimit: 0,
      order: Array.from({ length: 40 }, (_, index) => index),
    });
    expect({ active: hashes.active, queued: hashes.queued }).toEqual({ active: 0, queued: 0 });
  });
});
