import { EventLoopUtilization, performance } from 'node:perf_hooks';
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
 * gave the pool the CPU the event loop needed, and every hop (PIN work or not) waited seconds; bounded to the cores
 * left to the loop, a PIN hop either starts its hash within its share of the hop budget or is told to come back.
 */
export class PinHashGate extends AdmissionGate {}

/** Assumed time of one hash before the gate has timed one (scrypt log2N 14 on this class of machine). */
const FIRST_HASH_MS = 50;

/**
 * Below this event-loop utilisation the loop has headroom: it waits for I/O more than half the time, so no hop is
 * queued behind a hash for the core the busy limit keeps free. Above it (other hops keep the loop busy: the Know More
 * subscribers beside PIN work), the core goes back to the loop.
 */
export const LOOP_HEADROOM_BELOW = 0.5;
/** How often the loop's utilisation is read again (a hash takes ~35–50 ms: a few hashes' worth). */
export const LOOP_SAMPLE_MS = 100;

export interface HashConcurrency {
  /** Hashes at once while the loop is busy (PIN_HASH_CONCURRENCY). */
  busy: number;
  /** Hashes at once while the loop has headroom (PIN_HASH_CONCURRENCY_IDLE; never below `busy`). */
  idle: number;
}

/** Pure: how many hashes may run now, from the loop's utilisation over the last sample (0–1). */
export function hashConcurrencyFor(loopUtilisation: number, limits: HashConcurrency): number {
  return loopUtilisation < LOOP_HEADROOM_BELOW ? Math.max(limits.busy, limits.idle) : limits.busy;
}

/**
 * The event loop's utilisation (share of time running callbacks rather than waiting for I/O) over the last sample
 * period, read when asked: no timer, and between samples the last value is returned.
 */
export class LoopUtilisation {
  private last: Pick<EventLoopUtilization, 'idle' | 'active'>;
  private lastAt: number;
  private value = 0;

  constructor(
    private readonly readUtilisation: () => Pick<EventLoopUtilization, 'idle' | 'active'> = () =>
      performance.eventLoopUtilization(),
    private readonly now: () => number = () => performance.now(),
    private readonly periodMs = LOOP_SAMPLE_MS,
  ) {
    this.last = this.readUtilisation();
    this.lastAt = this.now();
  }

  current(): number {
    const at = this.now();
    if (at - this.lastAt >= this.periodMs) {
      const sample = this.readUtilisation();
      const active = sample.active - this.last.active;
      const total = active + sample.idle - this.last.idle;
      this.value = total > 0 ? active / total : 0;
      this.last = sample;
      this.lastAt = at;
    }
    return this.value;
  }
}

export function pinHashGateFromConfig(
  config: Pick<
    UssdConfig,
    'PIN_HASH_CONCURRENCY' | 'PIN_HASH_CONCURRENCY_IDLE' | 'PIN_HASH_QUEUE' | 'HOP_TIMEOUT_MS'
  >,
  loop: Pick<LoopUtilisation, 'current'> = new LoopUtilisation(),
): PinHashGate {
  const limits = { busy: config.PIN_HASH_CONCURRENCY, idle: config.PIN_HASH_CONCURRENCY_IDLE };
  return new PinHashGate({
    concurrency: limits.idle > limits.busy ? () => hashConcurrencyFor(loop.current(), limits) : limits.busy,
    queueLimit: config.PIN_HASH_QUEUE,
    maxWaitMs: dependencyTimeouts(config.HOP_TIMEOUT_MS).pinHashWaitMs,
    initialTaskMs: FIRST_HASH_MS,
    refuse: () => new PinHashBusyError(),
  });
}
