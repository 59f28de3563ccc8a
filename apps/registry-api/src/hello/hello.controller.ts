import { Controller, Get } from '@nestjs/common';
import type { HelloBody } from '@dmrv/contracts';
import { Public } from '../auth/public.decorator';

/** `GET /hello`, the original contract's "System Health" operation: public, it proves the process serves HTTP. */
@Controller()
@Public()
export class HelloController {
  @Get('hello')
  hello(): HelloBody {
    return { message: 'Hello from the registry data API' };
  }
}
