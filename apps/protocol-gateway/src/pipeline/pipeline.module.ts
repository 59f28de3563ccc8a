import { Module } from '@nestjs/common';
import { AccessModule } from '../access/access.module';
import { AccessPolicy } from '../access/access-policy';
import { AnswerCache } from '../caching/answer-cache';
import { CachePolicy } from '../caching/cache-policy';
import { CachingModule } from '../caching/caching.module';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { RoutesModule } from '../routes/routes.module';
import { ServedRoutes } from '../routes/served-routes';
import { TranscodingModule } from '../transcoding/transcoding.module';
import { UnknownFieldReport } from '../transcoding/unknown-field-report';
import { ReflectionMonitor } from '../upstream/reflection-monitor';
import { UpstreamModule } from '../upstream/upstream.module';
import { UpstreamPool } from '../upstream/upstream-pool';
import { QueryPipeline } from './query-pipeline';

/** One request through the stages: route, access, cache, upstream call, printing. */
@Module({
  imports: [RoutesModule, UpstreamModule, AccessModule, CachingModule, TranscodingModule],
  providers: [
    {
      provide: QueryPipeline,
      inject: [
        ProtocolGatewayConfig,
        ServedRoutes,
        UpstreamPool,
        ReflectionMonitor,
        AccessPolicy,
        UnknownFieldReport,
        AnswerCache,
        CachePolicy,
      ],
      useFactory: (
        config: ProtocolGatewayConfig,
        routes: ServedRoutes,
        client: UpstreamPool,
        reflection: ReflectionMonitor,
        access: AccessPolicy,
        unknownFields: UnknownFieldReport,
        cache: AnswerCache,
        cachePolicy: CachePolicy,
      ) =>
        new QueryPipeline(
          routes,
          client,
          reflection,
          access,
          unknownFields,
          {
            prefix: config.PROTOCOL_PREFIX,
            legacyPrefixes: config.LEGACY_PREFIXES,
            disabledMethods: config.DISABLED_METHODS,
            strictQuery: config.QUERY_STRICT,
            legacyRoutes: config.LEGACY_ROUTES,
          },
          cache,
          cachePolicy,
        ),
    },
  ],
  exports: [QueryPipeline],
})
export class PipelineModule {}
