import { Controller, Get, Header, Inject, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { SimulatorPage } from './simulator-page';

export const SIMULATOR_PAGE = Symbol('SIMULATOR_PAGE');

@Controller('simulator')
export class SimulatorController {
  constructor(@Inject(SIMULATOR_PAGE) private readonly page: SimulatorPage) {}

  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  @Header('x-content-type-options', 'nosniff')
  @Header('referrer-policy', 'no-referrer')
  show(@Res({ passthrough: true }) reply: FastifyReply): string {
    void reply.header('content-security-policy', this.page.contentSecurityPolicy);
    return this.page.html;
  }
}
