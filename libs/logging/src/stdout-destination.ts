import { destination, type DestinationStream } from 'pino';

/** Bytes of log lines gathered before one asynchronous write (pino's documented asynchronous logging). */
export const LOG_WRITE_BYTES = 4096;

/** The longest a line waits for others to join it: a quiet service's lines are still written at once, for a reader. */
export const LOG_FLUSH_INTERVAL_MS = 100;

/**
 * What the stdout buffer may hold when nothing reads it (a stalled log collector): past it, lines are dropped rather
 * than growing the service's memory without bound, and one notice goes to stderr.
 */
export const LOG_BUFFER_MAX_BYTES = 16 * 1024 * 1024;

let stdout: DestinationStream | undefined;

/**
 * The process's stdout for log lines: pino's own asynchronous destination (sonic-boom), shared by every logger of
 * the process so that an app and the apps a test starts in the same process write in order. Lines are gathered up to
 * LOG_WRITE_BYTES and written off the event loop; sonic-boom's `periodicFlush` writes what a quiet service logged
 * within LOG_FLUSH_INTERVAL_MS. pino flushes the destination synchronously in the process's `exit` handler, so a
 * `process.exit()`, the end of a graceful shutdown and a crash by an uncaught exception lose no line
 * (`stdout-destination.int-spec.ts`); only a kill that runs no JavaScript (SIGKILL) loses what is buffered.
 */
export function stdoutDestination(): DestinationStream {
  if (stdout === undefined) {
    const stream = destination({
      dest: 1,
      sync: false,
      minLength: LOG_WRITE_BYTES,
      periodicFlush: LOG_FLUSH_INTERVAL_MS,
      maxLength: LOG_BUFFER_MAX_BYTES,
    });
    stream.once('drop', () =>
      process.stderr.write(
        `log lines dropped: stdout is not being read (over ${LOG_BUFFER_MAX_BYTES} bytes held)\n`,
      ),
    );
    stdout = stream;
  }
  return stdout;
}
