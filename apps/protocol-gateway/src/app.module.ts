import { join } from 'node:path';
import { DynamicModule, Module } from '@nestjs/common';
import { ConfigModule } from '@dmrv/config';
import { HealthModule } from '@dmrv/health';
import { LoggingModule } from '@dmrv/logging';
import { buildInfo, Metrics, MetricsModule } from '@dmrv/metrics';
import { TracingModule } from '@dmrv/tracing';
import { loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import type { Root } from 'protobufjs';
import { AccessPolicy, parseApiKeys } from './access/access-policy';
import { AnswerCache } from './caching/answer-cache';
import { CachePolicy } from './caching/cache-policy';
import { ProtocolGatewayConfig } from './config/protocol-gateway.config';
import { QueryPipeline } from './pipeline/query-pipeline';
import { OpenApiDocuments } from './openapi/openapi-document';
import { appVersion } from './app-version';
import { GatewayController } from './http/gateway.controller';
import { RootController } from './http/root.controller';
import { SKIP_REASONS } from './routes/route-table';
import { REFUSAL_REASONS, ServedRoutes } from './routes/served-routes';
import { UnknownFieldReport } from './transcoding/unknown-field-report';
import { ReflectionMonitor } from './upstream/reflection-monitor';
import { UpstreamPool } from './upstream/upstream-pool';
import { upstreamProbe } from './upstream/upstream-probe';
import { UpstreamModule } from './upstream/upstream.module';

export const PROTO_DESCRIPTORS = Symbol('PROTO_DESCRIPTORS');

/**
 * The answer cache and its families: `dmrv_protocol_answers_total{source}`, `dmrv_protocol_cache_bytes`,
 * `dmrv_protocol_cache_entries`, `dmrv_protocol_cache_evictions_total`.
 */
function answerCache(config: ProtocolGatewayConfig, metrics: Metrics): AnswerCache {
  const answers = metrics.counter(
    'dmrv_protocol_answers_total',
    'Query answers by where they came from: kept (hit), shared with an identical call in flight (coalesced), or an upstream call of their own (miss)',
    ['source'],
  );
  const bySource = {
    hit: answers.labels('hit'),
    coalesced: answers.labels('coalesced'),
    miss: answers.labels('miss'),
  };
  for (const source of Object.values(bySource)) source.inc(0);
  const evictions = metrics
    .counter(
      'dmrv_protocol_cache_evictions_total',
      'Kept answers dropped to make room for a new one: the cache is at CACHE_MAX_BYTES',
    )
    .labels();
  const cache = new AnswerCache({
    latestTtlMs: config.CACHE_LATEST_TTL_MS,
    maxBytes: config.CACHE_MAX_BYTES,
    observe: (source) => bySource[source].inc(),
    evicted: () => evictions.inc(),
  });
  metrics.gauge({
    name: 'dmrv_protocol_cache_bytes',
    help: 'Bytes the answers the gateway keeps hold: keys, headers, bodies and the objects around them',
    collect: (gauge) => {
      cache.evictExpired();
      gauge.set(cache.bytesKept);
    },
  });
  metrics.gauge({
    name: 'dmrv_protocol_cache_entries',
    help: 'Answers the gateway keeps',
    collect: (gauge) => gauge.set(cache.entriesKept),
  });
  return cache;
}

@Module({})
export class AppModule {
  static forRoot(config: ProtocolGatewayConfig): DynamicModule {
    const redact =
      config.API_KEY_HEADER.toLowerCase() === 'x-api-key'
        ? []
        : [`req.headers["${config.API_KEY_HEADER.toLowerCase()}"]`];
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(ProtocolGatewayConfig, config),
        LoggingModule.forRoot({
          service: 'protocol-gateway',
          level: config.LOG_LEVEL,
          pretty: config.LOG_PRETTY,
          redact,
        }),
        MetricsModule.forRoot({
          service: 'protocol-gateway',
          config,
          build: buildInfo(join(__dirname, '..')),
        }),
        TracingModule.forRoot({ service: 'protocol-gateway', config }),
        UpstreamModule,
        HealthModule.forRoot({
          service: 'protocol-gateway',
          imports: [UpstreamModule],
          inject: [UpstreamPool],
          probes: (pool: UpstreamPool) => [upstreamProbe(pool)],
        }),
      ],
      controllers: [RootController, GatewayController],
      providers: [
        { provide: PROTO_DESCRIPTORS, useFactory: () => loadProtoRoot(QUERY_PROTO_FILES) },
        {
          provide: ServedRoutes,
          inject: [PROTO_DESCRIPTORS, ReflectionMonitor, Metrics],
          useFactory: (root: Root, reflection: ReflectionMonitor, metrics: Metrics) => {
            const refused = metrics.counter(
              'dmrv_protocol_reflection_refused_total',
              "Sets of the node's descriptors not used (the routes in service stayed), by reason",
              ['reason'],
            );
            for (const reason of REFUSAL_REASONS) refused.inc({ reason }, 0);
            const served = new ServedRoutes(root, QUERY_SERVICES, {
              prefix: config.PROTOCOL_PREFIX,
              maxReflectedRoutes: config.REFLECTION_MAX_ROUTES,
              onRefused: (reason) => refused.inc({ reason }),
            });
            metrics.gauge({
              name: 'dmrv_protocol_routes_skipped',
              help: 'HTTP bindings the node advertises that the gateway does not serve, by reason',
              labelNames: ['reason'],
              collect: (gauge) => {
                for (const reason of SKIP_REASONS) {
                  const count = served.current.skipped.filter((binding) => binding.reason === reason).length;
                  gauge.set({ reason }, count);
                }
              },
            });
            reflection.onRefresh((state) => served.update(state));
            return served;
          },
        },
        {
          provide: OpenApiDocuments,
          inject: [ServedRoutes],
          // Built from the table in service now, so a reflection refresh that changes the routes changes the document.
          useFactory: (served: ServedRoutes) =>
            new OpenApiDocuments(() => served.current.table, {
              title: 'Protocol gateway',
              version: appVersion(),
              access: { mode: config.ACCESS_MODE, header: config.API_KEY_HEADER },
            }),
        },
        {
          provide: AccessPolicy,
          useFactory: () =>
            new AccessPolicy({
              mode: config.ACCESS_MODE,
              header: config.API_KEY_HEADER,
              grants: parseApiKeys(config.API_KEYS),
            }),
        },
        {
          provide: QueryPipeline,
          inject: [ServedRoutes, UpstreamPool, ReflectionMonitor, AccessPolicy, Metrics],
          useFactory: (
            routes: ServedRoutes,
            client: UpstreamPool,
            reflection: ReflectionMonitor,
            access: AccessPolicy,
            metrics: Metrics,
          ) =>
            new QueryPipeline(
              routes,
              client,
              reflection,
              access,
              new UnknownFieldReport(metrics),
              {
                prefix: config.PROTOCOL_PREFIX,
                legacyPrefixes: config.LEGACY_PREFIXES,
                disabledMethods: config.DISABLED_METHODS,
                strictQuery: config.QUERY_STRICT,
                legacyRoutes: config.LEGACY_ROUTES,
              },
              answerCache(config, metrics),
              new CachePolicy({ accessMode: config.ACCESS_MODE, apiKeyHeader: config.API_KEY_HEADER }),
            ),
        },
      ],
    };
  }
}
