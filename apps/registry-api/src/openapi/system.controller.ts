import { Controller, Get, Inject } from '@nestjs/common';
import type { HelloBody } from '@dmrv/contracts';
import { Public } from '../auth/public.decorator';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** The "System Health" tag of the original: `/hello` for liveness, and the API's own description. */
@Controller()
@Public()
export class SystemController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: Record<string, unknown>) {}

  @Get('hello')
  hello(): HelloBody {
    return { message: 'Hello from the registry data API' };
  }

  @Get('openapi.json')
  openApi(): Record<string, unknown> {
    return this.document;
  }
}
