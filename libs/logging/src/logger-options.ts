import type { IncomingMessage } from 'node:http';
import type { Params } from 'nestjs-pino';
import { REQUEST_ID_HEADER } from './request-id';

export interface ServiceLoggingOptions {
  service: string;
  level: string;
  pretty: boolean;
  /** Paths whose requests are not logged (probes hit them every few seconds). */
  quietPaths?: string[];
  /** Extra redaction paths on top of the defaults. */
  redact?: string[];
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

function pathOf(request: IncomingMessage): string {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

export function buildLoggerParams(options: ServiceLoggingOptions): Params {
  const quiet = new Set(options.quietPaths ?? ['/health', '/health/live', '/health/ready', '/']);
  return {
    pinoHttp: {
      name: options.service,
      level: options.level,
      base: { service: options.service },
      // The HTTP layer assigns and validates the id before any middleware runs (see http-kit).
      genReqId: (request) => String(request.headers[REQUEST_ID_HEADER] ?? ''),
      customAttributeKeys: { reqId: 'requestId' },
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
    },
  };
}
