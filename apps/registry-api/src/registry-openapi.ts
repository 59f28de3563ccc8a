import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { HelloController } from './hello/hello.controller';
import { createRegistryDocument } from './openapi/registry-document';
import { RecordsController } from './registry/records.controller';
import { RegistryAnswers } from './registry/registry-answers.service';
import { RegistryController } from './registry/registry.controller';
import { JwksController, PUBLISHED_KEYS } from './signing/jwks.controller';

/**
 * The controllers of every documented route, with placeholders for what they would answer from: enough for Nest to
 * register the routes, without a database or keys.
 */
@Module({
  controllers: [RegistryController, RecordsController, HelloController, JwksController],
  providers: [
    { provide: RegistryAnswers, useValue: {} },
    { provide: PUBLISHED_KEYS, useValue: { keys: [] } },
  ],
})
export class DocumentedRoutesModule {}

/**
 * The OpenAPI document the service serves at `{basePath}/openapi.json`, generated without starting the service (for
 * scripts and tests; the service generates its own from its modules at start-up, registry-openapi.e2e-spec.ts proves
 * the two equal).
 */
export async function buildOpenApiDocument(basePath: string): Promise<OpenAPIObject> {
  const app = await NestFactory.create<NestFastifyApplication>(DocumentedRoutesModule, new FastifyAdapter(), {
    logger: false,
  });
  try {
    return createRegistryDocument(app, basePath);
  } finally {
    await app.close();
  }
}
