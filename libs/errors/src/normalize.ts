import { HttpException, HttpStatus } from '@nestjs/common';
import { DomainError, UnauthenticatedError } from './domain-error';

/** Every failure, whatever threw it, reduced to what an error body and a log line need. */
export interface NormalizedError {
  status: number;
  /** Stable string code: the domain code, or the HTTP status name for framework errors. */
  code: string;
  /** Safe to show to the client. For 5xx this is opaque; the detail stays in the log. */
  message: string;
  headers: Record<string, string>;
  details?: Record<string, unknown>;
  /** The original error, for the log only. */
  cause: unknown;
}

export const INTERNAL_ERROR_MESSAGE = 'Internal server error';

function statusName(status: number): string {
  const name = (HttpStatus as unknown as Record<number, string | undefined>)[status];
  return name ?? `HTTP_${status}`;
}

/** ValidationPipe answers `message: string[]`; clients of our contracts get one string. */
function flattenMessage(message: unknown): string | undefined {
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) {
    const parts = message.filter((part): part is string => typeof part === 'string');
    return parts.length > 0 ? parts.join('; ') : undefined;
  }
  return undefined;
}

function messageOfHttpException(exception: HttpException): string {
  const response = exception.getResponse();
  if (typeof response === 'string') return response;
  if (response && typeof response === 'object' && 'message' in response) {
    const flat = flattenMessage((response as { message: unknown }).message);
    if (flat) return flat;
  }
  return exception.message;
}

/** Errors raised by Fastify itself (bad JSON, body too large, wrong content type) carry `statusCode`. */
function isClientFrameworkError(
  exception: unknown,
): exception is Error & { statusCode: number; code?: string } {
  if (!(exception instanceof Error)) return false;
  const statusCode: unknown = (exception as unknown as { statusCode?: unknown }).statusCode;
  return typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

export function normalizeException(exception: unknown): NormalizedError {
  if (exception instanceof DomainError) {
    const headers: Record<string, string> = {};
    if (exception instanceof UnauthenticatedError && exception.challenge) {
      headers['www-authenticate'] = exception.challenge;
    }
    const exposed = exception.status < 500;
    return {
      status: exception.status,
      code: exception.code,
      message: exposed ? exception.message : INTERNAL_ERROR_MESSAGE,
      headers,
      details: exposed ? exception.details : undefined,
      cause: exception,
    };
  }
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    return {
      status,
      code: statusName(status),
      message: status < 500 ? messageOfHttpException(exception) : INTERNAL_ERROR_MESSAGE,
      headers: {},
      cause: exception,
    };
  }
  if (isClientFrameworkError(exception)) {
    return {
      status: exception.statusCode,
      code: statusName(exception.statusCode),
      message: exception.message,
      headers: {},
      cause: exception,
    };
  }
  return {
    status: 500,
    code: 'INTERNAL',
    message: INTERNAL_ERROR_MESSAGE,
    headers: {},
    cause: exception,
  };
}
