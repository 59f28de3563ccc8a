import { BadRequestException, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { normalizeException } from '@dmrv/errors';
import { renderGrpcStatusBody } from './error-renderer';
import { GatewayError } from './gateway-error';

const request = { method: 'GET', url: '/ixo/x' };

function render(exception: unknown): { status: number; body: unknown; headers?: Record<string, string> } {
  const { status, body, headers } = renderGrpcStatusBody(normalizeException(exception), request);
  return { status, body, headers };
}

describe('error renderer: {code, message, details} for every failure', () => {
  it('keeps our own message for a 5xx we wrote (the filter would make it opaque)', () => {
    expect(
      render(
        new GatewayError({
          grpcCode: 14,
          message: 'connect ECONNREFUSED 10.0.0.5:9090',
          publicMessage: 'the upstream node is unavailable',
        }),
      ),
    ).toEqual({
      status: 503,
      body: { code: 14, message: 'the upstream node is unavailable', details: [] },
      headers: {},
    });
  });

  it('carries headers such as Allow and WWW-Authenticate', () => {
    expect(
      render(
        new GatewayError({ grpcCode: 12, message: 'no POST', httpStatus: 405, headers: { allow: 'GET' } }),
      ).headers,
    ).toEqual({
      allow: 'GET',
    });
  });

  it.each([
    [new BadRequestException('bad'), 400, 3, 'bad'],
    [new NotFoundException('Cannot GET /x'), 404, 5, 'Cannot GET /x'],
    [new PayloadTooLargeException(), 413, 8, 'Payload Too Large'],
    [new Error('secret detail'), 500, 13, 'Internal server error'],
  ])('maps a framework error %p to HTTP %i and code %i', (exception, status, code, message) => {
    expect(render(exception)).toMatchObject({ status, body: { code, message, details: [] } });
  });
});
