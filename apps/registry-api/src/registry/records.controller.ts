import { Controller, Get, Query, Res, Type } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { sendAnswer } from '../http/rendered-json';
import { CollectionParams, recordQueryClasses } from './dto/registry-queries';
import { RECORD_RESOURCES, RecordResource } from './record-resources';
import { RegistryAnswers } from './registry-answers.service';
import { RecordRequest } from './registry.service';

type Handler = (
  this: RecordsController,
  query: RecordRequest & CollectionParams,
  reply: FastifyReply,
) => Promise<unknown>;

/**
 * Declares one GET route on the controller as `@Get(path) method(@Query() query: QueryClass, @Res({ passthrough: true })
 * reply)` would: the global validation pipe reads the query class from `design:paramtypes`, which TypeScript emits
 * only for written methods.
 */
function route(name: string, path: string, queryClass: Type<unknown>, handler: Handler): void {
  const prototype = RecordsController.prototype as unknown as Record<string, unknown>;
  Object.defineProperty(prototype, name, { value: handler, writable: true, configurable: true });
  Reflect.defineMetadata('design:paramtypes', [queryClass, Object], prototype, name);
  Query()(prototype, name, 0);
  Res({ passthrough: true })(prototype, name, 1);
  Get(path.slice(1))(prototype, name, Object.getOwnPropertyDescriptor(prototype, name)!);
}

/**
 * The routes of every record resource, generated from its declaration (`record-resources.ts`): the original path
 * answers the most recent matching record, `/list` pages the same resource (see the README's paging convention).
 */
@Controller()
export class RecordsController {
  constructor(readonly answers: RegistryAnswers) {}
}

function addRecordRoutes(resource: RecordResource<unknown>): void {
  const queries = recordQueryClasses(resource);
  const name = resource.endpoint.operationId.replace(/^get/, '');
  if (resource.endpoint.latest === 'records') {
    route(`latest${name}`, resource.endpoint.path, queries.latest, async function (query, reply) {
      return sendAnswer(reply, await this.answers.latestRecord(resource, query));
    });
  }
  route(`list${name}`, `${resource.endpoint.path}/list`, queries.list, async function (query, reply) {
    return sendAnswer(reply, await this.answers.recordPage(resource, query));
  });
}

for (const resource of RECORD_RESOURCES) addRecordRoutes(resource);
