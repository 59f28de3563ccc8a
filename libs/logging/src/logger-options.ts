import type { IncomingMessage } from 'node:http';
import { RequestMethod } from '@nestjs/common';
import type { Params } from 'nestjs-pino';
import { destination, type DestinationStream } from 'pino';
import { REQUEST_ID_HEADER } from './request-id';

export interface ServiceLoggingOptions {
  service: string;
  level: string;
  pretty: boolean;
  /** Paths whose requests are not logged (probes hit them every few seconds). */
  quietPaths?: string[];
  /** Extra redaction paths on top of the defaults. */
  redact?: string[];
  /** Where log lines go; stdout when omitted (tests pass a stream to read them). */
  destination?: DestinationStream;
}

/** Headers and fields that may carry credentials or subscriber input; never written to a log. */
export const DEFAULT_REDACTIONS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-operator-token"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.pin',
  '*.newPin',
  '*.oldPin',
  '*.password',
  '*.secret',
  '*.text',
];

/** Fastify's middleware layer (middie) strips the mount path from `url`; `originalUrl` keeps the real one. */
function urlOf(request: { url?: string; originalUrl?: string }): string {
  return request.originalUrl ?? request.url ?? '/';
}

function pathOf(request: IncomingMessage): string {
  const url = urlOf(request);
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * stdout written asynchronously: a synchronous write per line was a visible share of every request under load
 * (docs/performance.md). No `minLength` buffering, so a lone line at low traffic goes out at once; pino flushes
 * what is pending when the process exits.
 */
function asyncStdout(): DestinationStream {
  return destination({ dest: 1, sync: false });
}

export function buildLoggerParams(options: ServiceLoggingOptions): Params {
  const quiet = new Set(options.quietPaths ?? ['/health', '/health/live', '/health/ready', '/']);
  const httpOptions = {
    name: options.service,
    level: options.level,
    base: { service: options.service },
    // The HTTP layer assigns and validates the id before any middleware runs (see http-kit).
    genReqId: (request) => String(request.headers[REQUEST_ID_HEADER] ?? ''),
    customAttributeKeys: { reqId: 'requestId' },
    // Every line logged while serving a request (ours and Nest's) carries its id, bound once per request;
    // `customProps` did the same at twice the cost (a second child logger, re-checked when the response ends).
    quietReqLogger: true,
    autoLogging: { ignore: (request) => quiet.has(pathOf(request)) },
    redact: { paths: [...DEFAULT_REDACTIONS, ...(options.redact ?? [])], censor: '[redacted]' },
    serializers: {
      req: (request: { method: string; url: string; headers: Record<string, unknown> }) => ({
        method: request.method,
        url: request.url,
        userAgent: request.headers['user-agent'],
      }),
      res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
    },
    transport: options.pretty
      ? { target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' } }
      : undefined,
  } satisfies Params['pinoHttp'];
  // pino-pretty runs as a transport (its own thread); otherwise JSON lines go to the given or the async stream.
  const stream = options.destination ?? (options.pretty ? undefined : asyncStdout());
  return {
    // Nest 11 route syntax; nestjs-pino's default `*` no longer matches every path under the Fastify adapter.
    forRoutes: [{ path: '{*splat}', method: RequestMethod.ALL }],
    pinoHttp: stream ? [httpOptions, stream] : httpOptions,
  };
}
