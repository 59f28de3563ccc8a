import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { LivenessBody, ReadinessBody } from '@dmrv/contracts';
import { ReadinessService } from './readiness.service';
import { SERVICE_NAME } from './tokens';

export const PROBE_CACHE_CONTROL = 'no-store';

/** Both Express responses and Fastify replies have `status(code)`. */
interface StatusSettable {
  status(code: number): unknown;
}

/**
 * `/health` and `/health/ready` are readiness (503 when a dependency is down: an orchestrator stops sending traffic);
 * `/health/live` only says the process serves HTTP (an orchestrator restarts a process that fails it, so it checks
 * no dependency: an outage elsewhere must not restart healthy processes). None may be answered from a copy a proxy or
 * client kept: `Cache-Control: no-store`.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly readiness: ReadinessService,
    @Inject(SERVICE_NAME) private readonly service: string,
  ) {}

  @Get(['', 'ready'])
  @Header('Cache-Control', PROBE_CACHE_CONTROL)
  async ready(@Res({ passthrough: true }) response: StatusSettable): Promise<ReadinessBody> {
    const body = await this.readiness.check();
    if (body.status !== 'ok') response.status(503);
    return body;
  }

  @Get('live')
  @Header('Cache-Control', PROBE_CACHE_CONTROL)
  live(): LivenessBody {
    return { status: 'ok', service: this.service, uptime: Math.round(process.uptime()) };
  }
}
