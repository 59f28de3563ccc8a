import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { CONSTANT_ANSWER, requireEnv } from '../floors/floor-server';

/**
 * The framework reference's second ceiling: NestJS on its Fastify adapter as `NestFactory` makes it, with Nest's
 * logger off and nothing of ours (no request id, access line, metrics or error filter), one
 * controller route answering the constant. Against the `node:http` floor it says what Nest on Fastify costs before
 * any of our per-request work.
 */
@Controller()
class ConstantController {
  @Get('constant')
  constant(): typeof CONSTANT_ANSWER {
    return CONSTANT_ANSWER;
  }

  @Get('health')
  health(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

@Module({ controllers: [ConstantController] })
class ConstantModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestFastifyApplication>(ConstantModule, new FastifyAdapter(), {
    logger: false,
  });
  app.enableShutdownHooks();
  await app.listen(Number(requireEnv('PORT')), '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  process.send?.({ listening: `http://127.0.0.1:${port}` });
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
