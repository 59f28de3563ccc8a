import { Controller, Get, Inject } from '@nestjs/common';
import { ApiExtension, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { JsonWebKeySet } from '@dmrv/http-signatures';
import { Public } from '../auth/public.decorator';

export const PUBLISHED_KEYS = Symbol('PUBLISHED_KEYS');

const JWKS_SCHEMA = {
  type: 'object' as const,
  required: ['keys'],
  properties: {
    keys: {
      type: 'array' as const,
      items: {
        type: 'object' as const,
        required: ['kty', 'crv', 'x', 'kid'],
        properties: {
          kty: { type: 'string' as const, enum: ['OKP'] },
          crv: { type: 'string' as const, enum: ['Ed25519'] },
          x: { type: 'string' as const, description: 'The public key, base64url' },
          kid: { type: 'string' as const, description: 'RFC 7638 thumbprint: the keyid of its signatures' },
          use: { type: 'string' as const, enum: ['sig'] },
          exp: {
            type: 'integer' as const,
            description: 'When the key stopped signing (seconds since the epoch); absent on the current key',
          },
        },
      },
    },
  },
};

/**
 * `GET /v1/jwks.json`: the keys that sign the answers, public so anyone holding an answer can check it. Under the API's
 * base path rather than at `/.well-known/`: a proxy that forwards only the API's prefix to us still serves it.
 */
@Controller()
@Public()
export class JwksController {
  constructor(@Inject(PUBLISHED_KEYS) private readonly jwks: JsonWebKeySet) {}

  @Get('jwks.json')
  @ApiTags('System Health')
  @ApiOperation({
    summary: 'Keys that sign the answers',
    description:
      'The Ed25519 public keys (RFC 8037) whose signatures (RFC 9421, `Signature-Input` tagged `dmrv-registry`) every ' +
      'answer carries: the current key, and keys that signed before a rotation with `exp`, the time each stopped ' +
      'signing. See docs/security.md, "Signed answers".',
    security: [],
  })
  @ApiOkResponse({ description: 'A JWKS (RFC 7517)', schema: JWKS_SCHEMA })
  @ApiExtension('x-extension', true)
  getSigningKeys(): JsonWebKeySet {
    return this.jwks;
  }
}
