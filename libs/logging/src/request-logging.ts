import type { Logger as PinoInstance } from 'pino';
import { AccessLineWriter, type CompletedRequest } from './access-line';
import type { ServiceLoggers } from './logger-options';
import { requestLoggerStore, type RequestLoggerSource } from './service-logger';

export type { CompletedRequest } from './access-line';

/**
 * The request's logger, made on first use: most requests log nothing but their access line, and a child logger per
 * request was the largest remaining cost of logging a trivial request.
 */
class LazyRequestStore implements RequestLoggerSource {
  private child: PinoInstance | undefined;

  constructor(
    private readonly root: PinoInstance,
    private readonly requestId: string,
  ) {}

  get logger(): PinoInstance {
    this.child ??= this.root.child({ requestId: this.requestId });
    return this.child;
  }
}

/**
 * Per-request logging, driven by the HTTP layer's hooks: one child logger bound to the request id while the
 * request is served, and one access line when it is answered (none for probe paths).
 *
 * Replaces pino-http, which built a second child logger per request with the serialized and redacted request
 * bound to it, whether or not a line was ever written: ~20 % of the CPU of a trivial request (docs/performance.md).
 */
export class RequestLogging {
  private readonly accessLine: AccessLineWriter;
  // Whether a quiet path has this many characters: most paths are not looked up in the set, which would hash them.
  private readonly quietLength: boolean[] = [];

  constructor(private readonly loggers: ServiceLoggers) {
    this.accessLine = new AccessLineWriter(loggers.access);
    for (const path of loggers.quietPaths) this.quietLength[path.length] = true;
  }

  /** Runs `serve` (the rest of the request's pipeline) with a logger carrying `requestId` as the current one. */
  serveWith(requestId: string, serve: () => void): void {
    requestLoggerStore.run(new LazyRequestStore(this.loggers.root, requestId), serve);
  }

  completed(request: CompletedRequest): void {
    const url = request.url;
    const query = url.indexOf('?');
    const path = query === -1 ? url : url.slice(0, query);
    if (this.quietLength[path.length] === true && this.loggers.quietPaths.has(path)) return;
    // The caller's object goes to the writer as it is: a second object of the same fields per request was only more
    // garbage (docs/performance.md, round two, second pass).
    this.accessLine.write(request, path);
  }
}
