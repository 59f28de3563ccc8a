import { destination, type DestinationStream } from 'pino';

/** Where the buffered lines go: pino's stdout destination (sonic-boom), written synchronously. */
export interface ChunkSink {
  write(chunk: string): unknown;
  flushSync(): void;
}

/** Pending lines past this many characters (UTF-16 units) are written at once instead of waiting for their delay. */
export const MAX_PENDING_CHARS = 64 * 1024;

/** The longest a line below `error` waits before it is written. */
export const MAX_LINE_DELAY_MS = 20;

/**
 * Log lines held briefly and written to stdout in chunks. Every access line was a `write(2)` of its own, then one
 * per event-loop turn: under load a turn answers one or two requests, and that write was still a third of the CPU of
 * a trivial request and a fifth of a USSD hop (docs/performance.md, round two, fifth pass). Now:
 * - a line below `error` waits at most `maxDelayMs` (20 ms), and at most 64 K characters are held;
 * - an `error` or `fatal` line goes out at the end of the turn that logged it, with every line before it, so what an
 *   operator looks for first is never held by a timer;
 * - lines are never reordered.
 *
 * Pending lines are written on `flushSync()`, which the process's `exit` handler calls (`bufferedStdout`): a
 * `process.exit()`, the end of a graceful shutdown and a crash by an uncaught exception all run it. Only a kill that
 * runs no JavaScript (SIGKILL, the OOM killer) can lose lines: those of the last `maxDelayMs` below `error`.
 */
export class BufferedLogDestination implements DestinationStream {
  private pending = '';
  private timer: NodeJS.Timeout | undefined;
  private endOfTurnScheduled = false;

  constructor(
    private readonly sink: ChunkSink,
    private readonly maxDelayMs = MAX_LINE_DELAY_MS,
  ) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING_CHARS) this.writePending();
    else if (isErrorLine(line)) {
      if (!this.endOfTurnScheduled) {
        this.endOfTurnScheduled = true;
        setImmediate(this.endOfTurn);
      }
    } else if (this.timer === undefined) {
      // Unreferenced: a process with nothing else to do exits, and its exit handler writes what is pending.
      this.timer = setTimeout(this.delayPassed, this.maxDelayMs).unref();
    }
  }

  /** pino's `logger.flush(cb)`: the sink is synchronous, so the lines are written when this returns. */
  flush(callback?: (error?: Error) => void): void {
    this.writePending();
    callback?.();
  }

  flushSync(): void {
    this.writePending();
    this.sink.flushSync();
  }

  // A timer left running after an earlier write finds what was logged since, which has waited less than the delay.
  private readonly delayPassed = (): void => {
    this.timer = undefined;
    this.writePending();
  };

  private readonly endOfTurn = (): void => {
    this.endOfTurnScheduled = false;
    this.writePending();
  };

  private writePending(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.sink.write(chunk);
  }
}

/**
 * pino starts every line with its level as a number (`{"level":50,…`; this service sets no level formatter): 50 is
 * `error`, 60 `fatal`.
 */
function isErrorLine(line: string): boolean {
  const digit = line.charCodeAt(9);
  return (digit === 0x35 || digit === 0x36) && line.startsWith('{"level":');
}

let stdout: BufferedLogDestination | undefined;

/**
 * The process's stdout for log lines, shared by every logger of the process (an app and the apps tests start in the
 * same process write in order, and one `exit` handler flushes them all). Synchronous underneath: a chunk every few
 * milliseconds costs less than handing each to the thread pool, and a log reader that stops reading slows the service
 * down instead of growing its memory without bound.
 */
export function bufferedStdout(): DestinationStream {
  if (stdout === undefined) {
    const stream = new BufferedLogDestination(destination({ dest: 1, sync: true }));
    process.on('exit', () => stream.flushSync());
    stdout = stream;
  }
  return stdout;
}
