import type { Logger as PinoInstance } from 'pino';
import { AccessLineWriter } from './access-line';
import type { ServiceLoggers } from './logger-options';
import { requestLoggerStore, type RequestLoggerSource } from './service-logger';

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

export interface CompletedRequest {
  requestId: string;
  method: string;
  /** Path and query as the client sent them; only the path is written (a query may carry a PIN or a token). */
  url: string;
  /** The client's address, as the app's trust-proxy settings resolve it. */
  client: string | undefined;
  /** The authenticated client, when the app identified one: an id, never a credential. */
  clientId?: string | undefined;
  userAgent: string | undefined;
  statusCode: number;
  responseTimeMs: number;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
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

  constructor(private readonly loggers: ServiceLoggers) {
    this.accessLine = new AccessLineWriter(loggers.access);
  }

  /** Runs `serve` (the rest of the request's pipeline) with a logger carrying `requestId` as the current one. */
  serveWith(requestId: string, serve: () => void): void {
    requestLoggerStore.run(new LazyRequestStore(this.loggers.root, requestId), serve);
  }

  completed(request: CompletedRequest): void {
    const path = pathOf(request.url);
    if (this.loggers.quietPaths.has(path)) return;
    this.accessLine.write({
      requestId: request.requestId,
      method: request.method,
      path,
      client: request.client,
      clientId: request.clientId,
      userAgent: request.userAgent,
      statusCode: request.statusCode,
      responseTime: Math.round(request.responseTimeMs * 100) / 100,
    });
  }
}
