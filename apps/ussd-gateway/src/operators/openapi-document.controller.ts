import { Controller, Get, Injectable, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { OperatorTokenGuard } from '../contract/operator-token.guard';

/** The service's OpenAPI document: generated from the whole app, so built once it is up (bootstrap.ts) and kept. */
@Injectable()
export class OpenApiDocumentHolder {
  private document: object | undefined;

  keep(document: object): void {
    this.document = document;
  }

  get(): object {
    if (this.document === undefined) throw new Error('the OpenAPI document is built at bootstrap');
    return this.document;
  }
}

/** `GET /api/ussd/openapi.json`, for operators like the endpoints it describes. */
@ApiExcludeController()
@Controller('api/ussd')
@UseGuards(OperatorTokenGuard)
export class OpenApiDocumentController {
  constructor(private readonly holder: OpenApiDocumentHolder) {}

  @Get('openapi.json')
  document(): object {
    return this.holder.get();
  }
}
