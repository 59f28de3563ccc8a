import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { RegistryConfig } from '../config/registry.config';
import { ChangeListener, ROLLUP_CHANNEL } from '../database/change-listener';
import { RegistryMetrics } from '../telemetry/registry-metrics';
import { AggregateAnswers, AggregateCache } from './aggregate-cache';
import { REGISTRY_ENTITIES } from './entities/registry.entities';
import { RegistryController } from './registry.controller';
import { RegistryRepository } from './registry.repository';
import { RegistryService } from './registry.service';

/**
 * Every reported refresh or `projects` change drops every answer; so does the listener coming or going, since
 * notifications may have been missed meanwhile. While it is away the TTL alone bounds staleness.
 */
export function followRollupChanges(cache: AggregateCache, listener: ChangeListener): AggregateCache {
  listener.on('live', () => cache.clear());
  listener.on('down', () => cache.clear());
  listener.on('notification', (channel) => {
    if (channel === ROLLUP_CHANNEL) cache.clear();
  });
  return cache;
}

@Module({})
export class RegistryModule {
  static forRoot(config: RegistryConfig): DynamicModule {
    return {
      module: RegistryModule,
      imports: [TypeOrmModule.forFeature(REGISTRY_ENTITIES)],
      controllers: [RegistryController],
      providers: [
        RegistryService,
        RegistryRepository,
        {
          provide: AggregateCache,
          inject: [ChangeListener],
          useFactory: (listener: ChangeListener) =>
            followRollupChanges(new AggregateCache(config.AGGREGATE_CACHE_TTL_SECONDS * 1000, config.AGGREGATE_CACHE_MAX_ENTRIES), listener),
        },
        {
          provide: AggregateAnswers,
          inject: [AggregateCache, RegistryMetrics],
          useFactory: (cache: AggregateCache, metrics: RegistryMetrics) => new AggregateAnswers(cache, metrics.aggregateLookup),
        },
      ],
      exports: [AggregateCache],
    };
  }
}
