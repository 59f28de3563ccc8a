import { ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard } from '@nestjs/throttler';
import { HealthController } from '@dmrv/health';

/**
 * One budget per API client across all endpoints (the stock guard keeps one per route), and per address for
 * the unauthenticated routes. Runs after the API client guard, which sets `apiClientId`.
 */
@Injectable()
export class ClientRateLimitGuard extends ThrottlerGuard {
  protected override getTracker(request: Record<string, unknown>): Promise<string> {
    const client = request.apiClientId;
    return Promise.resolve(typeof client === 'string' ? `client:${client}` : `ip:${String(request.ip)}`);
  }

  protected override generateKey(_context: ExecutionContext, tracker: string, throttler: string): string {
    return `${throttler}:${tracker}`;
  }

  protected override shouldSkip(context: ExecutionContext): Promise<boolean> {
    return Promise.resolve(context.getClass() === HealthController);
  }
}
