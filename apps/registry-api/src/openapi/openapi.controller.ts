import { Controller, Get, Inject } from '@nestjs/common';
import { Public } from '../auth/public.decorator';

export const OPENAPI_DOCUMENT = Symbol('OPENAPI_DOCUMENT');

/** The API's own description, public (Swagger UI at `/api-docs` renders the same document). */
@Controller()
@Public()
export class OpenApiController {
  constructor(@Inject(OPENAPI_DOCUMENT) private readonly document: Record<string, unknown>) {}

  @Get('openapi.json')
  openApi(): Record<string, unknown> {
    return this.document;
  }
}
