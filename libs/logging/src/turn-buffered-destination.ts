import { destination, type DestinationStream } from 'pino';

/** Where the buffered lines go: pino's stdout destination (sonic-boom), written synchronously. */
export interface ChunkSink {
  write(chunk: string): unknown;
  flushSync(): void;
}

/** A turn that logs more than this (in UTF-16 units) writes at once instead of holding it to the end of the turn. */
export const MAX_PENDING_CHARS = 64 * 1024;

/**
 * Log lines written during one turn of the event loop, written to stdout as one chunk at the end of that turn
 * (`setImmediate`). An asynchronous write per line is a thread-pool job per line; under load a turn answers several
 * requests, and one write per turn keeps that hand-off from costing each of them. A lone line at low traffic still
 * goes out in the turn it was logged in. Lines are never reordered and nothing waits longer than the turn.
 *
 * Pending lines are written on `flushSync()`, which the process's `exit` handler calls (`bufferedStdout`): a
 * `process.exit()`, the end of a graceful shutdown and a crash by an uncaught exception all run it. Only a kill that
 * runs no JavaScript (SIGKILL, a signal without a handler) can lose the lines of the turn it interrupts.
 */
export class TurnBufferedDestination implements DestinationStream {
  private pending = '';
  private scheduled = false;

  constructor(private readonly sink: ChunkSink) {}

  write(line: string): void {
    this.pending += line;
    if (this.pending.length >= MAX_PENDING_CHARS) this.writePending();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
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

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.writePending();
  };

  private writePending(): void {
    if (this.pending === '') return;
    const chunk = this.pending;
    this.pending = '';
    this.sink.write(chunk);
  }
}

let stdout: TurnBufferedDestination | undefined;

/**
 * The process's stdout for log lines, shared by every logger of the process (an app and the apps tests start in the
 * same process write in order, and one `exit` handler flushes them all). Synchronous underneath: one write per turn
 * costs less than handing each chunk to the thread pool, and a log reader that stops reading slows the service down
 * instead of growing its memory without bound.
 */
export function bufferedStdout(): DestinationStream {
  if (stdout === undefined) {
    const stream = new TurnBufferedDestination(destination({ dest: 1, sync: true }));
    process.on('exit', () => stream.flushSync());
    stdout = stream;
  }
  return stdout;
}
