import type { Logger as PinoInstance } from 'pino';
import type { ServiceLoggers } from './logger-options';
import { requestLoggerStore, type RequestLoggerSource } from './service-logger';

/** A request as the HTTP layer answered it: what its access line is written from. */
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

/**
 * The request's logger, made on first use: most requests log nothing but their access line, so most never need a
 * child logger of their own.
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
 * Per-request logging, driven by the HTTP layer's hooks: a logger bound to the request id while the request is
 * served, and one access line when it is answered (none for probe paths).
 *
 * The access line is built from the fields the HTTP layer already resolved (path without query, client address,
 * status), not from the raw request and reply: nothing bound to a request is serialized unless a line is written.
 */
export class RequestLogging {
  constructor(private readonly loggers: ServiceLoggers) {}

  /** Runs `serve` (the rest of the request's pipeline) with a logger carrying `requestId` as the current one. */
  serveWith(requestId: string, serve: () => void): void {
    requestLoggerStore.run(new LazyRequestStore(this.loggers.root, requestId), serve);
  }

  completed(request: CompletedRequest): void {
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    if (this.loggers.quietPaths.has(path)) return;
    const line = {
      requestId: request.requestId,
      req: {
        method: request.method,
        path,
        client: request.client,
        clientId: request.clientId,
        userAgent: request.userAgent,
      },
      res: { statusCode: request.statusCode },
      responseTime: Math.round(request.responseTimeMs * 100) / 100,
    };
    // A 5xx is what an operator looks for first; its cause was logged at error by the exception filter.
    if (request.statusCode >= 500) this.loggers.access.error(line, 'request errored');
    else this.loggers.access.info(line, 'request completed');
  }
}
