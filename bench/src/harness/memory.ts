import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

function procStatusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

function rssKb(pid: number): number | undefined {
  const fromProc = procStatusKb(pid, 'VmRSS');
  if (fromProc !== undefined) return fromProc;
  try {
    const value = Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    return Number.isFinite(value) && value > 0 ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Peak resident memory of a process during one workload. On Linux the kernel's own high-water mark (VmHWM) is
 * reset first (`clear_refs` 5) so the peak belongs to this workload and no spike between samples is missed;
 * elsewhere, and as a floor under it, RSS is sampled.
 */
export class PeakMemory {
  private sampledKb = 0;
  private readonly timer: NodeJS.Timeout;
  private readonly kernelPeak: boolean;

  constructor(
    private readonly pid: number,
    intervalMs = 100,
  ) {
    this.kernelPeak = PeakMemory.resetKernelPeak(pid);
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  /** Stops sampling and returns the peak in bytes (0 when the process could not be read). */
  stop(): number {
    clearInterval(this.timer);
    this.sample();
    const kernelKb = this.kernelPeak ? (procStatusKb(this.pid, 'VmHWM') ?? 0) : 0;
    return Math.max(kernelKb, this.sampledKb) * 1024;
  }

  private sample(): void {
    this.sampledKb = Math.max(this.sampledKb, rssKb(this.pid) ?? 0);
  }

  private static resetKernelPeak(pid: number): boolean {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
      return true;
    } catch {
      return false;
    }
  }
}

/** Clock ticks per second of /proc's utime and stime (USER_HZ: 100 on every Linux the bench runs on). */
const USER_HZ = 100;

/**
 * CPU seconds (user + system, all threads) a process has used so far; undefined off Linux. Unlike requests per
 * second, CPU spent per answered request does not move with what else the shared machine runs.
 */
export function cpuSecondsOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat(5), counted from the state (field 3) at index 0.
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return undefined;
  }
}

export interface QuietOptions {
  /** How long each look at the process's CPU lasts. */
  intervalMs: number;
  /** Share of one core below which the process counts as quiet over an interval. */
  maxBusyShare: number;
  /** Give up waiting after this long. */
  timeoutMs: number;
}

export const QUIET: QuietOptions = { intervalMs: 200, maxBusyShare: 0.1, timeoutMs: 20_000 };

/**
 * Waits until a process has used less than `maxBusyShare` of a core over one interval: what a load run abandoned when
 * its window closed (requests in flight, a queue of PIN hashes) is done before the next run starts, so it is charged
 * to no run and does not take the CPU of the next one. Resolves false on time-out or without CPU readings.
 */
export async function waitUntilQuiet(
  readCpuSeconds: () => number | undefined,
  sleep: (ms: number) => Promise<void>,
  options: QuietOptions = QUIET,
): Promise<boolean> {
  for (let waitedMs = 0; waitedMs < options.timeoutMs; waitedMs += options.intervalMs) {
    const before = readCpuSeconds();
    await sleep(options.intervalMs);
    const after = readCpuSeconds();
    if (before === undefined || after === undefined) return false;
    if (after - before <= (options.maxBusyShare * options.intervalMs) / 1000) return true;
  }
  return false;
}
