import { Controller, Get, Query, Res, Type } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import type { CollectionPage } from '@dmrv/contracts';
import { CompiledRoute } from '@dmrv/http-kit';
import { sendRendered } from '../http/rendered-json';
import { CollectionParams, recordQueryClasses } from './dto/registry-queries';
import { EmptySelections } from './empty-selections';
import { RECORD_RESOURCES, RecordResource } from './record-resources';
import { RecordRequest, RegistryService } from './registry.service';

type Handler = (this: RecordsController, query: RecordRequest & CollectionParams, reply: FastifyReply) => Promise<unknown>;

/**
 * Declares one GET route on the controller as `@Get(path) @CompiledRoute() method(@Query() query: QueryClass,
 * @Res({ passthrough: true }) reply)` would: the global validation pipe reads the query class from
 * `design:paramtypes`, which TypeScript emits only for written methods.
 */
function route(name: string, path: string, queryClass: Type<unknown>, handler: Handler): void {
  const prototype = RecordsController.prototype as unknown as Record<string, unknown>;
  Object.defineProperty(prototype, name, { value: handler, writable: true, configurable: true });
  Reflect.defineMetadata('design:paramtypes', [queryClass, Object], prototype, name);
  Query()(prototype, name, 0);
  Res({ passthrough: true })(prototype, name, 1);
  const descriptor = Object.getOwnPropertyDescriptor(prototype, name)!;
  CompiledRoute()(prototype, name, descriptor);
  Get(path.slice(1))(prototype, name, descriptor);
}

/**
 * The routes of every record resource, generated from its declaration (`record-resources.ts`): the original path
 * answers the most recent matching record, `/list` pages the same resource (see the README's paging convention).
 */
@Controller()
export class RecordsController {
  constructor(
    readonly registry: RegistryService,
    readonly empty: EmptySelections,
  ) {}
}

function addRecordRoutes(resource: RecordResource<unknown>): void {
  const queries = recordQueryClasses(resource);
  const name = resource.endpoint.operationId.replace(/^get/, '');
  if (resource.endpoint.latest === 'records') {
    route(`latest${name}`, resource.endpoint.path, queries.latest, function (query, reply) {
      return this.empty.answer(resource.endpoint.operationId, async () =>
        sendRendered(reply, await this.registry.latestRendered(resource, { ...query })),
      );
    });
  }
  route(`list${name}`, `${resource.endpoint.path}/list`, queries.list, function (query): Promise<CollectionPage<unknown> | unknown> {
    return this.empty.answer(resource.endpoint.listOperationId, () => this.registry.page(resource, { ...query }), query.limit);
  });
}

for (const resource of RECORD_RESOURCES) addRecordRoutes(resource);
