import { IncomingMessage, maxHeaderSize, ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { BadRequestException, HttpException, HttpStatus } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ErrorRenderer, ErrorRequestView, normalizeException, renderMessageBody } from '@dmrv/errors';
import { REQUEST_ID_HEADER, RequestLogging, resolveRequestId } from '@dmrv/logging';

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** What a client reads when Fastify or Node refuse a request before any route sees it. */
export const FRAMEWORK_ERROR_MESSAGES = {
  badUrl: 'malformed URL: the path is not valid percent-encoding',
  headersTooLarge: `request line and headers too large (at most ${maxHeaderSize} bytes)`,
  malformed: 'malformed HTTP request',
  timeout: 'the request was not complete in time',
  expectation: 'unsupported Expect header: only 100-continue is understood',
  missingHost: 'an HTTP/1.1 request needs a Host header',
  closing: 'the service is shutting down',
} as const;

/**
 * An answer the responder writes itself, for an app that adds headers to every answer (the registry signs them): the
 * request when there is one (none for bytes that were not HTTP), the status, the body as sent.
 */
export interface FrameworkAnswer {
  request?: { method: string; url: string; protocol: string; host: string };
  status: number;
  contentType: string;
  body: string;
}

export type FrameworkAnswerHeaders = (answer: FrameworkAnswer) => Record<string, string>;

interface WireError {
  status: number;
  body: string;
  contentType: string;
  headers: Record<string, string>;
}

// The request line of the bytes a client error arrived in, when they still hold it (a header overflow in a later
// chunk does not): enough for an app whose error shape depends on the route.
const REQUEST_LINE = /^([A-Z]{1,20}) (\S{1,8192}) HTTP\/1\.[01]\r?\n/;
const NO_REQUEST: ErrorRequestView = { method: '', url: '' };

function requestViewOf(rawPacket: unknown): ErrorRequestView {
  if (!Buffer.isBuffer(rawPacket)) return NO_REQUEST;
  const match = REQUEST_LINE.exec(rawPacket.toString('latin1', 0, Math.min(rawPacket.length, 8300)));
  return match ? { method: match[1]!, url: match[2]! } : NO_REQUEST;
}

function clientErrorException(code: string | undefined): HttpException {
  if (code === 'HPE_HEADER_OVERFLOW') return new HttpException(FRAMEWORK_ERROR_MESSAGES.headersTooLarge, 431);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new HttpException(FRAMEWORK_ERROR_MESSAGES.timeout, HttpStatus.REQUEST_TIMEOUT);
  return new BadRequestException(FRAMEWORK_ERROR_MESSAGES.malformed);
}

// A header value of ours never holds CR or LF; a renderer's must not smuggle a header into a raw response either.
function headerLine(name: string, value: string): string {
  return `${name}: ${value.replace(/[\r\n]/g, ' ')}\r\n`;
}

/**
 * Answers, in the app's own error shape (its ErrorRenderer, as the exception filter would), the requests that
 * Fastify and Node refuse before any route or hook runs: a path that is not valid percent-encoding (Fastify's
 * `frameworkErrors`), bytes that are not HTTP or headers over Node's limit (`clientError`: 400, 408, 431; a
 * request line over the limit is 431 too, Node has no 414), and an `Expect` other than 100-continue (417). Each
 * gets a request id and an access line like any other request. The renderer and logger are attached once the Nest
 * app exists; nothing is served before that.
 */
export class FrameworkErrorResponder {
  private render: ErrorRenderer | undefined;
  private logging: RequestLogging | undefined;
  private extraHeaders: FrameworkAnswerHeaders = () => ({});

  attach(render: ErrorRenderer, logging: RequestLogging, extraHeaders?: FrameworkAnswerHeaders): void {
    this.render = render;
    this.logging = logging;
    if (extraHeaders) this.extraHeaders = extraHeaders;
  }

  /** Fastify's `frameworkErrors`: a URL whose path does not decode. */
  readonly badUrl = (_error: Error, request: FastifyRequest, reply: FastifyReply): void => {
    const view = { method: request.method, url: request.url };
    const wire = this.wire(new BadRequestException(FRAMEWORK_ERROR_MESSAGES.badUrl), view);
    // Sent through a context of Fastify's own, which runs none of the app's onSend hooks.
    const extra = this.extraHeaders({
      ...wire,
      request: { ...view, protocol: request.protocol, host: request.host },
    });
    void reply
      .code(wire.status)
      .headers({ ...wire.headers, ...extra })
      .header(REQUEST_ID_HEADER, request.id)
      .header('content-type', wire.contentType)
      .send(wire.body);
    this.logging?.completed({
      requestId: request.id,
      method: request.method,
      url: request.url,
      client: request.ip,
      userAgent: request.headers['user-agent'],
      statusCode: wire.status,
      responseTimeMs: reply.elapsedTime,
    });
  };

  /** Node's `clientError`: no request exists, so the answer is written to the socket as raw HTTP. */
  readonly clientError = (error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void => {
    // A reset connection has nobody left to answer.
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    if (socket.writable) {
      const view = requestViewOf(error.rawPacket);
      const wire = this.wire(clientErrorException(error.code), view);
      const requestId = resolveRequestId(undefined);
      let head = `HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? ''}\r\n`;
      const extra = this.extraHeaders(wire);
      for (const [name, value] of Object.entries({ ...wire.headers, ...extra }))
        head += headerLine(name, value);
      head += headerLine(REQUEST_ID_HEADER, requestId);
      head += headerLine('content-type', wire.contentType);
      head += headerLine('content-length', String(Buffer.byteLength(wire.body)));
      head += 'connection: close\r\n\r\n';
      socket.write(head + wire.body);
      this.logging?.completed({
        requestId,
        method: view.method,
        url: view.url,
        client: (socket as Partial<Socket>).remoteAddress,
        userAgent: undefined,
        statusCode: wire.status,
        responseTimeMs: 0,
      });
    }
    socket.destroy(error);
  };

  /** Node's `checkExpectation`: without a listener Node answers 417 with an empty body. */
  readonly expectationFailed = (request: IncomingMessage, response: ServerResponse): void => {
    const view = { method: request.method ?? '', url: request.url ?? '' };
    const wire = this.wire(
      new HttpException(FRAMEWORK_ERROR_MESSAGES.expectation, HttpStatus.EXPECTATION_FAILED),
      view,
    );
    const requestId = resolveRequestId(request.headers[REQUEST_ID_HEADER]);
    const protocol = (request.socket as Partial<{ encrypted: boolean }>).encrypted ? 'https' : 'http';
    const extra = this.extraHeaders({
      ...wire,
      request: { ...view, protocol, host: request.headers.host ?? '' },
    });
    response.writeHead(wire.status, {
      ...wire.headers,
      ...extra,
      [REQUEST_ID_HEADER]: requestId,
      'content-type': wire.contentType,
      'content-length': Buffer.byteLength(wire.body),
      connection: 'close',
    });
    response.end(wire.body);
    this.logging?.completed({
      requestId,
      method: view.method,
      url: view.url,
      client: request.socket.remoteAddress,
      userAgent: request.headers['user-agent'],
      statusCode: wire.status,
      responseTimeMs: 0,
    });
  };

  private wire(exception: HttpException, view: ErrorRequestView): WireError {
    const error = normalizeException(exception);
    const rendered = (this.render ?? renderMessageBody)(error, view);
    return {
      status: rendered.status,
      body: typeof rendered.body === 'string' ? rendered.body : JSON.stringify(rendered.body),
      contentType: rendered.contentType ?? JSON_CONTENT_TYPE,
      headers: { ...error.headers, ...rendered.headers },
    };
  }
}
