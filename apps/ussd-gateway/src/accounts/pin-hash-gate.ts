import { AdmissionGate } from '@dmrv/rate-limit';
import { dependencyTimeouts } from '../config/dependency-timeouts';
import type { UssdConfig } from '../config/ussd.config';

/** Every PIN hash slot is taken and waiting for one would pass the hop budget: the hop answers "busy". */
export class PinHashBusyError extends Error {
  constructor() {
    super('every PIN hash slot is busy and the queue would outlast the hop budget');
  }
}

/**
 * Admission control for PIN hashing (scrypt on libuv's four-thread pool). Unbounded, a burst of PIN hops on two cores
 * gave the pool the CPU the event loop needed, and every hop (PIN work or not) waited seconds; bounded, a PIN hop
 * either starts its hash within its share of the hop budget or is told to come back.
 */
export class PinHashGate extends AdmissionGate {}

/** Assumed time of one hash before the gate has timed one (scrypt log2N 14 on this class of machine). */
const FIRST_HASH_MS = 50;

export function pinHashGateFromConfig(
  config: Pick<UssdConfig, 'PIN_HASH_CONCURRENCY' | 'PIN_HASH_QUEUE' | 'HOP_TIMEOUT_MS'>,
): PinHashGate {
  return new PinHashGate({
    concurrency: config.PIN_HASH_CONCURRENCY,
    queueLimit: config.PIN_HASH_QUEUE,
    maxWaitMs: dependencyTimeouts(config.HOP_TIMEOUT_MS).pinHashWaitMs,
    initialTaskMs: FIRST_HASH_MS,
    refuse: () => new PinHashBusyError(),
  });
}
