import { Controller, Get, Inject } from '@nestjs/common';
import type { JsonWebKeySet } from '@dmrv/http-signatures';
import { Public } from '../auth/public.decorator';

export const PUBLISHED_KEYS = Symbol('PUBLISHED_KEYS');

/**
 * `GET /v1/jwks.json`: the keys that sign the answers, public so anyone holding an answer can check it. Under the API's
 * base path rather than at `/.well-known/`: a proxy that forwards only the API's prefix to us still serves it.
 */
@Controller()
@Public()
export class JwksController {
  constructor(@Inject(PUBLISHED_KEYS) private readonly jwks: JsonWebKeySet) {}

  @Get('jwks.json')
  keys(): JsonWebKeySet {
    return this.jwks;
  }
}
