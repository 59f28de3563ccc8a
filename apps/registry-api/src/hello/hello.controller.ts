import { Controller, Get } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { HelloBody } from '@dmrv/contracts';
import { Public } from '../auth/public.decorator';

/** `GET /hello`, the original contract's "System Health" operation: public, it proves the process serves HTTP. */
@Controller()
@Public()
export class HelloController {
  @Get('hello')
  @ApiTags('System Health')
  @ApiOperation({ summary: 'Liveness', security: [] })
  @ApiOkResponse({
    description: 'The process serves HTTP',
    schema: { type: 'object', properties: { message: { type: 'string' } } },
  })
  getHello(): HelloBody {
    return { message: 'Hello from the registry data API' };
  }
}
