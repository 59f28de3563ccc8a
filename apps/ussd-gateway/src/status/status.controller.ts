import { Controller, Get, Header, Res } from '@nestjs/common';
import { SkipThrottle } from '@nestjs/throttler';
import type { LivenessBody, UssdHealthRecord, UssdRootRecord } from '@dmrv/contracts';
import { PROBE_CACHE_CONTROL, ReadinessService } from '@dmrv/health';
import { UssdConfig } from '../config/ussd.config';

interface StatusSettable {
  status(code: number): unknown;
}

@Controller()
export class StatusController {
  constructor(
    private readonly readiness: ReadinessService,
    private readonly config: UssdConfig,
  ) {}

  @Get()
  root(): UssdRootRecord {
    return {
      status: 'ok',
      message: 'USSD gateway is running',
      environment: this.config.NODE_ENV,
      timestamp: new Date().toISOString(),
    };
  }

  @Get('health')
  @Header('Cache-Control', PROBE_CACHE_CONTROL)
  health(@Res({ passthrough: true }) response: StatusSettable): Promise<UssdHealthRecord> {
    return this.readinessRecord(response, 'every dependency');
  }

  /**
   * Readiness for orchestrators: the spec's `/health` record under the path the other services use, 503 only when the
   * session store (Redis) does not answer: PostgreSQL is reported but does not decide (see StatusModule). Not
   * rate-limited: a probe refused with 429 would take a healthy instance out of service, and every instance on a node
   * is probed from the same address.
   */
  @Get('health/ready')
  @SkipThrottle()
  @Header('Cache-Control', PROBE_CACHE_CONTROL)
  ready(@Res({ passthrough: true }) response: StatusSettable): Promise<UssdHealthRecord> {
    return this.readinessRecord(response, 'required dependencies');
  }

  private async readinessRecord(
    response: StatusSettable,
    deciding: 'every dependency' | 'required dependencies',
  ): Promise<UssdHealthRecord> {
    const readiness = await this.readiness.check();
    const status =
      deciding === 'every dependency' &&
      Object.values(readiness.checks).some((check) => check.status !== 'up')
        ? 'error'
        : readiness.status;
    const state = (name: string): 'connected' | 'disconnected' | undefined => {
      const check = readiness.checks[name];
      return check === undefined ? undefined : check.status === 'up' ? 'connected' : 'disconnected';
    };
    if (status !== 'ok') response.status(503);
    return {
      status,
      environment: this.config.NODE_ENV,
      timestamp: new Date().toISOString(),
      uptime: Math.round(process.uptime()),
      database: state('database') ?? 'disconnected',
      redis: state('redis') ?? 'not configured',
    };
  }

  /**
   * Liveness, as the other two services answer it: the process serves HTTP. Nothing else is checked, not even the
   * rate-limit counter in Redis, so an outage of a dependency never gets a healthy process restarted.
   */
  @Get('health/live')
  @SkipThrottle()
  @Header('Cache-Control', PROBE_CACHE_CONTROL)
  live(): LivenessBody {
    return { status: 'ok', service: 'ussd-gateway', uptime: Math.round(process.uptime()) };
  }
}
