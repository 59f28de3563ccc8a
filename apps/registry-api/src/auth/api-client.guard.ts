import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { UnauthenticatedError } from '@dmrv/errors';
import { HealthController } from '@dmrv/health';
import { setAccessLogClientId } from '@dmrv/http-kit';
import { RegistryMetrics } from '../telemetry/registry-metrics';
import { AuthService, TooManyFailuresError } from './auth.service';
import { AuthenticationBusyError } from './hash-gate';
import { IS_PUBLIC } from './public.decorator';

export interface AuthenticatedRequest {
  headers: Record<string, string | string[] | undefined>;
  ip: string;
  apiClientId?: string;
}

interface HeaderSettable {
  header(name: string, value: string): unknown;
}

@Injectable()
export class ApiClientGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly auth: AuthService,
    private readonly metrics: RegistryMetrics,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // The shared health controller cannot carry our decorator; orchestrators probe it without credentials.
    if (context.getClass() === HealthController) return true;
    if (this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [context.getHandler(), context.getClass()]))
      return true;
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    try {
      request.apiClientId = await this.auth.authenticate(
        Array.isArray(header) ? header[0] : header,
        request.ip,
      );
      setAccessLogClientId(request, request.apiClientId);
      this.metrics.authenticated('success');
    } catch (error) {
      if (error instanceof TooManyFailuresError || error instanceof AuthenticationBusyError) {
        this.metrics.authenticated(error instanceof TooManyFailuresError ? 'throttled' : 'busy');
        context
          .switchToHttp()
          .getResponse<HeaderSettable>()
          .header('retry-after', String(error.retryAfterSeconds));
      } else if (error instanceof UnauthenticatedError) {
        this.metrics.authenticated(header === undefined ? 'missing' : 'rejected');
      }
      throw error;
    }
    return true;
  }
}
