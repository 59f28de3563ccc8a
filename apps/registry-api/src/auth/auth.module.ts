import { Module } from '@nestjs/common';
import { API_CLIENT_CHANNEL, ChangeListener } from '../database/change-listener';
import { RegistryMetrics } from '../telemetry/registry-metrics';
import { ApiClientCache } from './api-client-cache';
import { ApiClientsRepository } from './api-clients.repository';
import { AuthService } from './auth.service';

/** The cache is trusted exactly while the listener is live, and forgets each client whose row changes. */
export function followApiClientChanges(cache: ApiClientCache, listener: ChangeListener): ApiClientCache {
  listener.on('live', () => cache.trust());
  listener.on('down', () => cache.distrust());
  listener.on('notification', (channel, payload) => {
    if (channel === API_CLIENT_CHANNEL) cache.forget(payload);
  });
  if (listener.state === 'live') cache.trust();
  return cache;
}

@Module({
  providers: [
    ApiClientsRepository,
    {
      provide: ApiClientCache,
      inject: [ChangeListener, RegistryMetrics],
      useFactory: (listener: ChangeListener, metrics: RegistryMetrics) =>
        followApiClientChanges(new ApiClientCache(undefined, metrics.apiClientLookup), listener),
    },
    AuthService,
  ],
  exports: [AuthService, ApiClientCache],
})
export class AuthModule {}
