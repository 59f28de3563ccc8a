import { BinaryLike, scrypt, ScryptOptions } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { OnModuleDestroy } from '@nestjs/common';
import type { UssdConfig } from '../config/ussd.config';

/** scrypt of a PIN, wherever it runs. */
export type Scrypt = (pin: BinaryLike, salt: Buffer, keyLength: number, options: ScryptOptions) => Promise<Buffer>;

/** On libuv's pool, at the process's priority (PIN_HASH_NICE=0). */
export const libuvScrypt: Scrypt = (pin, salt, keyLength, options) =>
  new Promise((resolve, reject) =>
    scrypt(pin, salt, keyLength, options, (error, derived) => (error ? reject(error) : resolve(derived))),
  );

// Each thread lowers its own priority once, by `nice` below the process's (lowering needs no privilege): Linux
// schedules threads as tasks, so setpriority() on the thread's id (from /proc/thread-self) renices that thread alone.
// Elsewhere the thread runs at the process's priority.
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
let niced = false;
try {
  const { getPriority, setPriority } = require('node:os');
  const threadId = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  setPriority(threadId, Math.min(19, getPriority(threadId) + workerData.nice));
  niced = true;
} catch {}
parentPort.postMessage({ niced });
parentPort.on('message', ({ id, pin, salt, keyLength, options }) => {
  try {
    const hash = scryptSync(pin, salt, keyLength, options);
    parentPort.postMessage({ id, hash });
  } catch (error) {
    parentPort.postMessage({ id, error: String(error && error.message) });
  } finally {
    if (pin instanceof Uint8Array) pin.fill(0);
  }
});`;

interface Task {
  id: number;
  pin: BinaryLike;
  salt: Buffer;
  keyLength: number;
  options: ScryptOptions;
  resolve(hash: Buffer): void;
  reject(error: Error): void;
}

interface HashThread {
  worker: Worker;
  task?: Task;
}

/**
 * PIN hashes on threads of their own, run at a lower priority (`nice`) than the event loop: a hash takes only CPU
 * the loop does not want, so hops that hash nothing keep their latency while PIN hops use every idle core. How many
 * run at once is the PinHashGate's business; this pool runs what it is given, one hash per thread, in order.
 */
export class NicedScryptThreads implements OnModuleDestroy {
  private readonly threads: HashThread[] = [];
  private readonly waiting: Task[] = [];
  private nextId = 0;
  private closed = false;
  /** Whether the threads could lower their priority (false off Linux): said once, at start-up. */
  readonly niced: Promise<boolean>;

  constructor(
    size: number,
    private readonly nice: number,
  ) {
    const started = Array.from({ length: size }, () => this.startThread());
    this.niced = Promise.all(started).then((answers) => answers.every(Boolean));
    this.niced.catch(() => undefined);
  }

  readonly scrypt: Scrypt = (pin, salt, keyLength, options) =>
    new Promise<Buffer>((resolve, reject) => {
      if (this.closed) return reject(new Error('the PIN hash threads are closed'));
      this.waiting.push({ id: (this.nextId += 1), pin, salt, keyLength, options, resolve, reject });
      this.dispatch();
    });

  onModuleDestroy(): Promise<void> {
    return this.close();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.waiting.splice(0)) task.reject(new Error('the PIN hash threads are closed'));
    await Promise.all(this.threads.map((thread) => thread.worker.terminate()));
  }

  private startThread(): Promise<boolean> {
    const thread: HashThread = { worker: new Worker(THREAD_SOURCE, { eval: true, workerData: { nice: this.nice } }) };
    // Never what keeps the process alive.
    thread.worker.unref();
    this.threads.push(thread);
    const ready = new Promise<boolean>((resolve) => {
      thread.worker.once('message', (message: { niced: boolean }) => {
        thread.worker.on('message', (answer: { id: number; hash?: Uint8Array; error?: string }) => this.finished(thread, answer));
        resolve(message.niced);
        this.dispatch();
      });
    });
    thread.worker.on('error', (error) => this.lost(thread, error));
    thread.worker.on('exit', (code) => this.lost(thread, new Error(`a PIN hash thread exited with code ${code}`)));
    return ready;
  }

  private finished(thread: HashThread, answer: { id: number; hash?: Uint8Array; error?: string }): void {
    const task = thread.task;
    thread.task = undefined;
    if (task && task.id === answer.id) {
      if (answer.hash) task.resolve(Buffer.from(answer.hash.buffer, answer.hash.byteOffset, answer.hash.byteLength));
      else task.reject(new Error(answer.error ?? 'scrypt failed'));
    }
    this.dispatch();
  }

  /** A thread that died fails its hash (that hop answers "unavailable") and is replaced. */
  private lost(thread: HashThread, error: Error): void {
    const index = this.threads.indexOf(thread);
    if (index === -1) return;
    this.threads.splice(index, 1);
    thread.task?.reject(error);
    thread.task = undefined;
    if (!this.closed) void this.startThread();
  }

  private dispatch(): void {
    for (const thread of this.threads) {
      if (this.waiting.length === 0) return;
      if (thread.task) continue;
      const task = this.waiting.shift()!;
      thread.task = task;
      thread.worker.postMessage({ id: task.id, pin: task.pin, salt: task.salt, keyLength: task.keyLength, options: task.options });
    }
  }
}

/** One thread per hash the gate lets run at once; none with PIN_HASH_NICE=0 (hashes on libuv's pool, as before). */
export function pinHashThreadsFromConfig(config: Pick<UssdConfig, 'PIN_HASH_NICE' | 'PIN_HASH_CONCURRENCY'>): NicedScryptThreads | null {
  return config.PIN_HASH_NICE > 0 ? new NicedScryptThreads(config.PIN_HASH_CONCURRENCY, config.PIN_HASH_NICE) : null;
}
