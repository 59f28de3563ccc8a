import type { Middleware } from 'openapi-fetch';

/** A 200 answer kept for revalidation: its entity tag, its headers and its bytes as they came. */
export interface CachedAnswer {
  etag: string;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

/**
 * Where conditional requests keep answers, by method and URL. Memory by default ({@link MemoryResponseCache}); any
 * store will do (IndexedDB, Redis, files), synchronous or not. One cache serves one set of credentials: the key holds
 * no credentials, and two clients that see different data must not share a cache.
 */
export interface ResponseCache {
  get(key: string): CachedAnswer | undefined | Promise<CachedAnswer | undefined>;
  set(key: string, answer: CachedAnswer): void | Promise<void>;
}

/** The last `maxEntries` answers (least recently used out first). */
export class MemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, CachedAnswer>();

  constructor(private readonly maxEntries = 500) {}

  get(key: string): CachedAnswer | undefined {
    const answer = this.entries.get(key);
    if (answer !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, answer);
    }
    return answer;
  }

  set(key: string, answer: CachedAnswer): void {
    this.entries.delete(key);
    this.entries.set(key, answer);
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }
}

/** The header fields as pairs, with `forEach` (the DOM library's `Headers` is iterable only with DOM.Iterable). */
export function headerPairs(headers: Headers): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  headers.forEach((value, name) => pairs.push([name, value]));
  return pairs;
}

const keyOf = (request: Request): string => `${request.method} ${request.url}`;

/**
 * openapi-fetch middleware: a GET whose answer the cache holds goes with `If-None-Match`; a 304 to it resolves to
 * the kept answer (status 200), and a 200 with an `ETag` is kept. A 304 costs the server no body and the caller
 * nothing: the call resolves as if the answer had come again.
 */
export function conditionalRequests(cache: ResponseCache): Middleware {
  const pending = new Map<string, CachedAnswer>();
  return {
    async onRequest({ request, id }) {
      if (request.method !== 'GET' || request.headers.has('if-none-match')) return undefined;
      const kept = await cache.get(keyOf(request));
      if (kept === undefined) return undefined;
      pending.set(id, kept);
      const conditional = new Request(request);
      conditional.headers.set('if-none-match', kept.etag);
      return conditional;
    },
    async onResponse({ request, response, id }) {
      const kept = pending.get(id);
      pending.delete(id);
      if (response.status === 304 && kept !== undefined)
        return new Response(kept.body as Uint8Array<ArrayBuffer>, { status: 200, headers: kept.headers });
      const etag = response.headers.get('etag');
      if (request.method === 'GET' && response.status === 200 && etag !== null) {
        const body = new Uint8Array(await response.clone().arrayBuffer());
        await cache.set(keyOf(request), { etag, headers: headerPairs(response.headers), body });
      }
      return undefined;
    },
    onError({ id }) {
      pending.delete(id);
      return undefined;
    },
  };
}
