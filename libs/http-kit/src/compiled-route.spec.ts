import * as nestConstants from '@nestjs/common/constants';
import { FASTIFY_ROUTE_CONFIG_METADATA } from '@nestjs/platform-fastify/constants';
import { NEST_METADATA } from './compiled-route';

describe('compiled routes read the metadata Nest writes', () => {
  it('uses the installed Nest’s metadata keys', () => {
    expect(NEST_METADATA).toEqual({
      routeArgs: nestConstants.ROUTE_ARGS_METADATA,
      pipes: nestConstants.PIPES_METADATA,
      guards: nestConstants.GUARDS_METADATA,
      interceptors: nestConstants.INTERCEPTORS_METADATA,
      filters: nestConstants.EXCEPTION_FILTERS_METADATA,
      httpCode: nestConstants.HTTP_CODE_METADATA,
      headers: nestConstants.HEADERS_METADATA,
      redirect: nestConstants.REDIRECT_METADATA,
      render: nestConstants.RENDER_METADATA,
      sse: nestConstants.SSE_METADATA,
      passthrough: nestConstants.RESPONSE_PASSTHROUGH_METADATA,
      method: nestConstants.METHOD_METADATA,
      paramtypes: nestConstants.PARAMTYPES_METADATA,
      fastifyRouteConfig: FASTIFY_ROUTE_CONFIG_METADATA,
    });
  });
});
