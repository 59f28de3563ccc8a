import { createHash, timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, NotFoundException } from '@nestjs/common';
import { UnauthenticatedError } from '@dmrv/errors';
import { UssdConfig } from '../config/ussd.config';

export const OPERATOR_TOKEN_HEADER = 'x-operator-token';

const digest = (value: string): Buffer => createHash('sha256').update(value).digest();

/**
 * Operator endpoints exist only when OPERATOR_TOKEN is set; otherwise they answer exactly like an unknown route,
 * so a scan learns nothing. The comparison is over fixed-length digests, in constant time.
 */
@Injectable()
export class OperatorTokenGuard implements CanActivate {
  constructor(private readonly config: UssdConfig) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context
      .switchToHttp()
      .getRequest<{ method: string; url: string; headers: Record<string, unknown> }>();
    const expected = this.config.OPERATOR_TOKEN;
    if (!expected) throw new NotFoundException(`Cannot ${request.method} ${request.url.split('?')[0]}`);
    const presented = request.headers[OPERATOR_TOKEN_HEADER];
    if (typeof presented !== 'string' || !timingSafeEqual(digest(presented), digest(expected))) {
      throw new UnauthenticatedError(`A valid ${OPERATOR_TOKEN_HEADER} header is required`);
    }
    return true;
  }
}
