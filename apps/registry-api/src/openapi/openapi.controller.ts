import { Controller, Get, Injectable } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { OpenAPIObject } from '@nestjs/swagger';
import { Public } from '../auth/public.decorator';

/**
 * The OpenAPI document the service serves. It is generated from the app's routes, so only once the app exists:
 * bootstrap.ts sets it before the app listens.
 */
@Injectable()
export class ServedOpenApiDocument {
  private document: OpenAPIObject | undefined;

  set(document: OpenAPIObject): void {
    this.document = document;
  }

  get(): OpenAPIObject {
    if (!this.document) throw new Error('The OpenAPI document is served before it was generated');
    return this.document;
  }
}

/**
 * The API's own description, public (Swagger UI at `/api-docs` renders the same document). A Nest route, so that
 * the per-address rate limit of public routes counts it, as it counts every route of the API.
 */
@Controller()
@Public()
@ApiExcludeController()
export class OpenApiController {
  constructor(private readonly served: ServedOpenApiDocument) {}

  @Get('openapi.json')
  getOpenApi(): OpenAPIObject {
    return this.served.get();
  }
}
