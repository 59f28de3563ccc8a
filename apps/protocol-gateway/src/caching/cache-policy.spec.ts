import { Metadata } from '@grpc/grpc-js';
import type { CachedLookup } from './answer-cache';
import { CacheDecision, CachePolicy } from './cache-policy';

const metadata = (entries: Record<string, string>): Metadata => {
  const m = new Metadata();
  for (const [k, v] of Object.entries(entries)) m.set(k, v);
  return m;
};

const lookup = (freshForMs: number): CachedLookup => ({
  answer: { status: 200, headers: {}, body: '{}', etag: '"abc"' },
  source: 'miss',
  freshForMs,
});

const open = new CachePolicy({ accessMode: 'open', apiKeyHeader: 'x-api-key' });
const keyed = new CachePolicy({ accessMode: 'api-key', apiKeyHeader: 'X-Api-Key' });
const OPEN_VARY = 'x-cosmos-block-height, grpc-metadata-x-cosmos-block-height, authorization';

describe('CachePolicy.decide', () => {
  it.each<[string, CachePolicy, Record<string, string>, CacheDecision]>([
    [
      'open, latest',
      open,
      { 'x-request-id': 'r', traceparent: '00-1' },
      { retention: 'latest', shared: true },
    ],
    [
      'open, height 0 (the latest)',
      open,
      { 'x-cosmos-block-height': '0' },
      { retention: 'latest', shared: true },
    ],
    ['open, pinned', open, { 'x-cosmos-block-height': '7' }, { retention: 'pinned', shared: false }],
    ['open, other metadata', open, { tenant: 'acme' }, { retention: 'none', shared: false }],
    [
      'open, Authorization for the node',
      open,
      { authorization: 'Bearer t' },
      { retention: 'none', shared: false },
    ],
    [
      'open, pinned with metadata',
      open,
      { 'x-cosmos-block-height': '7', 'x-pad': 'p' },
      { retention: 'none', shared: false },
    ],
    ['api key, latest', keyed, {}, { retention: 'latest', shared: false }],
    ['api key, pinned', keyed, { 'x-cosmos-block-height': '7' }, { retention: 'pinned', shared: false }],
  ])('%s', (_case, policy, entries, decision) => {
    expect(policy.decide(metadata(entries))).toEqual(decision);
  });
});

describe('CachePolicy.headers', () => {
  it.each<[string, CachePolicy, CacheDecision, number, string, string]>([
    ['open, latest kept', open, { retention: 'latest', shared: true }, 4_999, 'public, max-age=4', OPEN_VARY],
    [
      'open, latest under a second left',
      open,
      { retention: 'latest', shared: true },
      999,
      'public, no-cache',
      OPEN_VARY,
    ],
    ['open, latest not kept', open, { retention: 'latest', shared: true }, 0, 'public, no-cache', OPEN_VARY],
    [
      'open, pinned',
      open,
      { retention: 'pinned', shared: false },
      Infinity,
      'private, max-age=31536000, immutable',
      OPEN_VARY,
    ],
    [
      'open, pinned with no room to keep it',
      open,
      { retention: 'pinned', shared: false },
      0,
      'private, max-age=31536000, immutable',
      OPEN_VARY,
    ],
    [
      'open, forwarded metadata',
      open,
      { retention: 'none', shared: false },
      0,
      'private, no-cache',
      OPEN_VARY,
    ],
    [
      'api key, latest kept',
      keyed,
      { retention: 'latest', shared: false },
      60_000,
      'private, max-age=60',
      `${OPEN_VARY}, x-api-key`,
    ],
    [
      'api key, pinned',
      keyed,
      { retention: 'pinned', shared: false },
      Infinity,
      'private, max-age=31536000, immutable',
      `${OPEN_VARY}, x-api-key`,
    ],
  ])('%s', (_case, policy, decision, fresh, control, vary) => {
    expect(policy.headers(lookup(fresh), decision)).toEqual({
      etag: '"abc"',
      'cache-control': control,
      vary,
    });
  });

  it('names Authorization once when it is the API key header', () => {
    const bearer = new CachePolicy({ accessMode: 'api-key', apiKeyHeader: 'Authorization' });
    expect(bearer.vary).toBe(OPEN_VARY);
  });
});
