import { AuthenticationBusyError, HashGate } from './hash-gate';

/** A hash the test finishes by hand. */
function pendingHash(): { run: () => Promise<boolean>; finish: () => void; started: () => boolean } {
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

describe('HashGate', () => {
  it('runs up to its concurrency, queues up to its limit and refuses the rest at once', async () => {
    const gate = new HashGate(2, 1);
    const hashes = [pendingHash(), pendingHash(), pendingHash()];
    const results = hashes.map((hash) => gate.run(hash.run));
    expect(hashes.map((hash) => hash.started())).toEqual([true, true, false]);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 2, queued: 1 });
    await expect(gate.run(() => Promise.resolve(true))).rejects.toBeInstanceOf(AuthenticationBusyError);

    hashes[0]!.finish();
    await results[0];
    await Promise.resolve();
    expect(hashes[2]!.started()).toBe(true);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 2, queued: 0 });
    hashes[1]!.finish();
    hashes[2]!.finish();
    await Promise.all(results);
    expect({ active: gate.active, queued: gate.queued }).toEqual({ active: 0, queued: 0 });
  });

  it('frees the slot of a hash that fails', async () => {
    const gate = new HashGate(1, 0);
    await expect(gate.run(() => Promise.reject(new Error('scrypt failed')))).rejects.toThrow('scrypt failed');
    await expect(gate.run(() => Promise.resolve(true))).resolves.toBe(true);
  });

  it('answers 503 with Retry-After: 1 when full', () => {
    const error = new AuthenticationBusyError();
    expect({ status: error.status, code: error.code, retryAfter: error.retryAfterSeconds }).toEqual({
      status: 503,
      code: 'AUTH_BUSY',
      retryAfter: 1,
    });
  });
});
