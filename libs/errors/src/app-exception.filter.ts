import { ArgumentsHost, Catch, ExceptionFilter, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ErrorRenderer, renderMessageBody } from './error-renderer';
import { normalizeException } from './normalize';

interface RawRequest {
  method?: string;
  url?: string;
  originalUrl?: string;
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The one catch-all filter of every app. A lean body (shape chosen by the app's renderer), an opaque message
 * for 5xx with the detail only in the log. The request id header is set before routing, so it is on every
 * response this filter writes.
 */
@Catch()
export class AppExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('ExceptionFilter');

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly render: ErrorRenderer = renderMessageBody,
  ) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const request = http.getRequest<RawRequest>();
    const response = http.getResponse<unknown>();
    const adapter = this.adapterHost.httpAdapter;
    const error = normalizeException(exception);
    const view = { method: request.method ?? 'GET', url: request.originalUrl ?? request.url ?? '/' };

    if (error.status >= 500) {
      this.logger.error(
        { err: exception instanceof Error ? exception : new Error(String(exception)), code: error.code },
        // The path only: a query string can carry a PIN (`?text=`) or a token, and logs outlive requests.
        `${view.method} ${pathOf(view.url)} failed`,
      );
    } else {
      this.logger.debug({ code: error.code, status: error.status }, error.message);
    }

    const rendered = this.render(error, view);
    if (adapter.isHeadersSent(response)) return;
    for (const [name, value] of Object.entries({ ...error.headers, ...rendered.headers })) {
      adapter.setHeader(response, name, value);
    }
    adapter.setHeader(response, 'content-type', rendered.contentType ?? 'application/json; charset=utf-8');
    adapter.reply(response, rendered.body, rendered.status);
  }
}
