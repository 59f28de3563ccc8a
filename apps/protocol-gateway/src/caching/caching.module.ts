import { Module } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { ProtocolGatewayConfig } from '../config/protocol-gateway.config';
import { AnswerCache } from './answer-cache';
import { CachePolicy } from './cache-policy';

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

/** The answers kept and joined (AnswerCache), and which of them may be kept and how they are marked (CachePolicy). */
@Module({
  providers: [
    { provide: AnswerCache, inject: [ProtocolGatewayConfig, Metrics], useFactory: answerCache },
    {
      provide: CachePolicy,
      inject: [ProtocolGatewayConfig],
      useFactory: (config: ProtocolGatewayConfig) =>
        new CachePolicy({ accessMode: config.ACCESS_MODE, apiKeyHeader: config.API_KEY_HEADER }),
    },
  ],
  exports: [AnswerCache, CachePolicy],
})
export class CachingModule {}
