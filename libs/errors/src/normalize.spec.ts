import {
  BadRequestException,
  HttpException,
  NotFoundException,
  ServiceUnavailableException,
} from '@nestjs/common';
import { DependencyUnavailableError, DomainError, NotFoundError, UnauthenticatedError } from './domain-error';
import { INTERNAL_ERROR_MESSAGE, normalizeException } from './normalize';

describe('normalizeException', () => {
  it('keeps a domain error status, code and message', () => {
    expect(normalizeException(new NotFoundError('no device dev-1'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'no device dev-1',
      headers: {},
    });
  });

  it('adds the WWW-Authenticate challenge of a 401', () => {
    const error = normalizeException(
      new UnauthenticatedError('Invalid credentials', 'Basic realm="registry"'),
    );
    expect(error).toMatchObject({ status: 401, message: 'Invalid credentials' });
    expect(error.headers).toEqual({ 'www-authenticate': 'Basic realm="registry"' });
  });

  it('hides the message of a 5xx domain error', () => {
    const error = normalizeException(new DependencyUnavailableError('postgres at 10.0.0.5'));
    expect(error).toMatchObject({
      status: 503,
      code: 'DEPENDENCY_UNAVAILABLE',
      message: INTERNAL_ERROR_MESSAGE,
    });
  });

  it('flattens a ValidationPipe message array into one string', () => {
    const exception = new BadRequestException([
      'limit must not be greater than 500',
      'cursor must be a string',
    ]);
    expect(normalizeException(exception)).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      message: 'limit must not be greater than 500; cursor must be a string',
    });
  });

  it('keeps a plain HttpException message', () => {
    expect(normalizeException(new NotFoundException('Cannot GET /nope'))).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      message: 'Cannot GET /nope',
    });
    expect(normalizeException(new HttpException('Too Many Requests', 429))).toMatchObject({
      status: 429,
      code: 'TOO_MANY_REQUESTS',
    });
  });

  it('hides the detail of a 5xx HttpException', () => {
    expect(
      normalizeException(new ServiceUnavailableException('redis at 10.0.0.7:6379 refused')),
    ).toMatchObject({
      status: 503,
      message: INTERNAL_ERROR_MESSAGE,
    });
  });

  it('passes through client errors raised by the HTTP framework (bad JSON, body too large)', () => {
    const error = Object.assign(new Error('Body is not valid JSON'), {
      statusCode: 400,
      code: 'FST_ERR_CTP_INVALID_JSON_BODY',
    });
    expect(normalizeException(error)).toMatchObject({ status: 400, message: 'Body is not valid JSON' });
  });

  it('turns anything unknown into an opaque 500', () => {
    for (const thrown of [
      new TypeError('cannot read x of undefined'),
      'a string',
      null,
      { statusCode: 400 },
    ]) {
      expect(normalizeException(thrown)).toMatchObject({
        status: 500,
        code: 'INTERNAL',
        message: INTERNAL_ERROR_MESSAGE,
      });
    }
  });

  it('never treats a framework error with a 5xx statusCode as a client error', () => {
    const error = Object.assign(new Error('pool exhausted at 10.0.0.5'), { statusCode: 503 });
    expect(normalizeException(error)).toMatchObject({ status: 500, message: INTERNAL_ERROR_MESSAGE });
  });

  it('keeps the original error for the log', () => {
    const original = new DomainError('SOMETHING', 'x', 409);
    expect(normalizeException(original).cause).toBe(original);
  });
});
