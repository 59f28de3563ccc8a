import { FactoryProvider, Module } from '@nestjs/common';
import { RegistryConfig } from '../config/registry.config';
import { ChangeListener, ROLLUP_CHANNEL } from '../database/change-listener';
import { SqlReader } from '../database/sql-reader';
import { RegistryMetrics } from '../telemetry/registry-metrics';
import { AggregateAnswerCache } from './aggregate-cache';
import { EmptySelections } from './empty-selections';
import {
  CollectionTotals,
  followRecordChanges,
  LatestRecordAnswers,
  RecordAnswerCache,
  RecordAnswerCacheOptions,
} from './record-answer-cache';
import { RecordsController } from './records.controller';
import { RegistryController } from './registry.controller';
import { RegistryRepository } from './registry.repository';
import { RegistryAnswers } from './registry-answers.service';
import { RegistryService } from './registry.service';

/**
 * Every reported refresh or `projects` change drops every answer; so does the listener coming or going, since
 * notifications may have been missed meanwhile. While it is away the TTL alone bounds staleness.
 */
export function followRollupChanges(
  cache: AggregateAnswerCache,
  listener: ChangeListener,
): AggregateAnswerCache {
  listener.on('live', () => cache.clear());
  listener.on('down', () => cache.clear());
  listener.on('notification', (channel) => {
    if (channel === ROLLUP_CHANNEL) cache.clear();
  });
  return cache;
}

/** A record cache of the given kind, sized by RECORD_CACHE_MAX_ENTRIES, counted in its metric, following the listener. */
function recordCacheProvider<C extends RecordAnswerCache<unknown>>(
  kind: new (options: RecordAnswerCacheOptions) => C,
  metric: 'recordLookup' | 'totalLookup',
): FactoryProvider<C> {
  return {
    provide: kind,
    inject: [RegistryConfig, ChangeListener, RegistryMetrics, SqlReader],
    useFactory: (
      config: RegistryConfig,
      listener: ChangeListener,
      metrics: RegistryMetrics,
      reader: SqlReader,
    ) =>
      followRecordChanges(
        new kind({
          maxEntries: config.RECORD_CACHE_MAX_ENTRIES,
          onLookup: metrics[metric],
          readFresh: (work) => reader.onPrimary(work),
        }),
        listener,
      ),
  };
}

@Module({
  controllers: [RegistryController, RecordsController],
  providers: [
    RegistryAnswers,
    RegistryService,
    RegistryRepository,
    {
      provide: EmptySelections,
      inject: [RegistryConfig],
      // Its zero values come from the OpenAPI document, generated once the app exists (bootstrap.ts).
      useFactory: (config: RegistryConfig) => new EmptySelections(config.EMPTY_AS),
    },
    {
      provide: AggregateAnswerCache,
      inject: [RegistryConfig, ChangeListener, RegistryMetrics, SqlReader],
      useFactory: (
        config: RegistryConfig,
        listener: ChangeListener,
        metrics: RegistryMetrics,
        reader: SqlReader,
      ) =>
        followRollupChanges(
          new AggregateAnswerCache({
            ttlMs: config.AGGREGATE_CACHE_TTL_SECONDS * 1000,
            maxEntries: config.AGGREGATE_CACHE_MAX_ENTRIES,
            onLookup: metrics.aggregateLookup,
            readFresh: (work) => reader.onPrimary(work),
          }),
          listener,
        ),
    },
    recordCacheProvider(LatestRecordAnswers, 'recordLookup'),
    recordCacheProvider(CollectionTotals, 'totalLookup'),
  ],
  exports: [AggregateAnswerCache, LatestRecordAnswers, CollectionTotals],
})
export class RegistryModule {}
