import type { Metadata } from '@grpc/grpc-js';
import { CachedLookup, PER_REQUEST_METADATA, Retention } from './answer-cache';

export const BLOCK_HEIGHT_METADATA = 'x-cosmos-block-height';

/** How one request's answer may be kept: by the gateway, and by the caches after it. */
export interface CacheDecision {
  retention: Retention;
  /** A shared cache (a CDN, a proxy) may keep the answer and hand it to other clients. */
  shared: boolean;
}

export interface CachePolicyOptions {
  accessMode: 'open' | 'api-key';
  /** The header the access policy reads the API key from (it reads `authorization` as well). */
  apiKeyHeader: string;
}

/** A year: what "never changes" is written as (RFC 9111 recommends no more). */
const IMMUTABLE_MAX_AGE_S = 31_536_000;

/**
 * Which answers are kept, and what `Cache-Control` and `Vary` tell the caches after the gateway.
 *
 * A Cosmos node's answer to a query depends on the request and the height only, so answers are kept and shared when
 * the height is all the metadata the node saw. Any other metadata the client had forwarded (a `Grpc-Metadata-*`
 * header, `Authorization` on an open gateway) is something the node may answer on that no cache key can list in
 * advance: such answers are joined while in flight but never kept, and are `private, no-cache`.
 *
 * A height-pinned answer is `private` too: the height travels in a header, not in the URL, and a shared cache that
 * ignores `Vary` (several CDNs do) would hand it out for a year as the latest answer. The gateway keeps it instead.
 * Behind API keys every answer is `private`, so a shared cache never hands one to a caller without the key.
 *
 * `Vary` names every request header the answer depends on: both ways of asking for a height, `Authorization`, and
 * the API key header.
 */
export class CachePolicy {
  readonly vary: string;

  constructor(private readonly options: CachePolicyOptions) {
    const headers = new Set([
      BLOCK_HEIGHT_METADATA,
      `grpc-metadata-${BLOCK_HEIGHT_METADATA}`,
      'authorization',
    ]);
    if (options.accessMode === 'api-key') headers.add(options.apiKeyHeader.toLowerCase());
    this.vary = [...headers].join(', ');
  }

  /** The metadata as it goes to the node: the height already validated. */
  decide(metadata: Metadata): CacheDecision {
    let pinned = false;
    for (const name of Object.keys(metadata.getMap())) {
      if (PER_REQUEST_METADATA.has(name)) continue;
      if (name !== BLOCK_HEIGHT_METADATA) return { retention: 'none', shared: false };
      pinned = Number(metadata.get(name)[0]) > 0;
    }
    if (pinned) return { retention: 'pinned', shared: false };
    return { retention: 'latest', shared: this.options.accessMode === 'open' };
  }

  /** The validator and freshness headers of an answer. */
  headers(lookup: CachedLookup, decision: CacheDecision): Record<string, string> {
    const scope = decision.shared ? 'public' : 'private';
    const seconds = Math.floor(lookup.freshForMs / 1000);
    // A height's state is final, whether or not the gateway had room to keep it.
    const control =
      decision.retention === 'pinned'
        ? `${scope}, max-age=${IMMUTABLE_MAX_AGE_S}, immutable`
        : seconds > 0
          ? `${scope}, max-age=${seconds}`
          : `${scope}, no-cache`;
    return { etag: lookup.answer.etag, 'cache-control': control, vary: this.vary };
  }
}
