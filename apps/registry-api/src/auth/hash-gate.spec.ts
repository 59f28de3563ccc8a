import { AuthenticationBusyError, HashGate } from './hash-gate';

// The queueing itself is AdmissionGate's (libs/rate-limit/src/admission-gate.spec.ts); here only what the registry adds.
describe('HashGate', () => {
  it('refuses a hash beyond its concurrency and queue with AuthenticationBusyError, and frees a failed one', async () => {
    const gate = new HashGate(1, 0);
    const held = gate.admit();
    await expect(gate.run(() => Promise.resolve(true))).rejects.toBeInstanceOf(AuthenticationBusyError);
    held.release();
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
