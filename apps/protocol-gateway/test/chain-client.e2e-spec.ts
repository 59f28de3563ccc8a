import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { status as GrpcCode } from '@grpc/grpc-js';
import {
  ChainAnswer,
  createChainClient,
  grpcStatus,
  HttpError,
  NetworkError,
  Page,
  Schema,
  TimeoutError,
} from '@dmrv/chain-client';
import { SEED_COUNTS } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

// @dmrv/chain-client over HTTP against the gateway, which calls the local chain node over gRPC: what an ixo developer
// gets, checked against the gateway's own JSON and the node's seed.
type Claim = Schema<'ixo.claims.v1beta1.Claim'>;

/** A port nothing listens on (fetch refuses the "bad ports" such as 1 before connecting: not a refused connection). */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe('@dmrv/chain-client against the gateway and the local chain node', () => {
  // The node reads this map on every call: a test makes a method fail and heals it.
  const failures = new Map<string, GrpcCode>();
  let node: LocalChainNode;
  let gateway: Gateway;
  let baseUrl: string;

  /** The gateway's own answer, as fetch reads it: what the client must hand back unchanged. */
  const raw = async (path: string): Promise<unknown> => (await fetch(`${baseUrl}${path}`)).json();

  beforeAll(async () => {
    node = await startNode({
      failures,
      delayMs: 2_000,
      slowMethods: ['ixo.token.v1beta1.Query/TokenMetadata'],
    });
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    await gateway.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(gateway.app.getHttpServer().address() as AddressInfo).port}`;
  });

  afterEach(() => failures.clear());

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
  });

  describe('paging with next_key', () => {
    it('reads every claim of the 260 exactly once, page by page, each page as the gateway printed it', async () => {
      const chain = createChainClient({ baseUrl });
      const pages: Page<ChainAnswer<'/ixo/claims/claims'>>[] = [];
      for await (const page of chain.paginate('/ixo/claims/claims', { pageSize: 50 })) pages.push(page);

      const ids = pages.flatMap((page) => page.data.claims.map((claim) => claim.claim_id));
      expect(SEED_COUNTS.claims).toBe(260);
      expect(ids).toEqual(node.seed.claims.map((claim) => claim.claim_id));
      expect(new Set(ids).size).toBe(260);
      expect(pages.map((page) => page.data.claims.length)).toEqual([50, 50, 50, 50, 50, 10]);
      // Each page's cursor is the previous page's next_key; the last next_key is null, as a node prints it.
      expect(pages.map((page) => page.cursor)).toEqual([
        null,
        ...pages.slice(0, -1).map((page) => page.nextCursor),
      ]);
      expect(pages.at(-1)!.data.pagination).toEqual({ next_key: null, total: '0' });
      for (const page of pages) {
        const query = page.cursor === null ? '' : `&pagination.key=${encodeURIComponent(page.cursor)}`;
        expect(page.data).toEqual(await raw(`/ixo/claims/claims?pagination.limit=50${query}`));
      }
    });

    it('resumes from a saved cursor: a sync stopped after two pages reads the rest, nothing twice', async () => {
      const chain = createChainClient({ baseUrl });
      const seen: string[] = [];
      let saved: string | null = null;
      for await (const page of chain.paginate('/ixo/claims/claims', { pageSize: 40 })) {
        seen.push(...page.data.claims.map((claim) => claim.claim_id));
        saved = page.nextCursor;
        if (seen.length === 80) break; // the process stops; `saved` is what it had written down
      }
      expect(saved).toEqual(expect.any(String));

      const resumed = createChainClient({ baseUrl });
      const cursors: (string | null)[] = [];
      for await (const page of resumed.paginate('/ixo/claims/claims', { pageSize: 40, cursor: saved })) {
        cursors.push(page.cursor);
        seen.push(...page.data.claims.map((claim) => claim.claim_id));
      }
      expect(cursors[0]).toBe(saved);
      expect(seen).toEqual(node.seed.claims.map((claim) => claim.claim_id));
    });

    it('pages a route with a path parameter, keeping the caller’s other query parameters', async () => {
      const chain = createChainClient({ baseUrl });
      const minter = String(node.seed.tokens[0]!.minter);
      const names: string[] = [];
      for await (const page of chain.paginate('/ixo/token/minter/{minter}', {
        params: { path: { minter }, query: { 'pagination.reverse': true } },
        pageSize: 3,
      })) {
        names.push(...page.data.tokenDocs.map((token) => token.name));
      }
      // Three pages of at most 3 in the node's reverse store order: the same four tokens as one reverse page.
      const whole = (await raw(
        `/ixo/token/minter/${minter}?pagination.reverse=true`,
      )) as ChainAnswer<'/ixo/token/minter/{minter}'>;
      expect(whole.tokenDocs.length).toBe(4);
      expect(names).toEqual(whole.tokenDocs.map((token) => token.name));
    });
  });

  describe('answers exactly as the gateway and a node print them', () => {
    it('snake_case names, int64 and Uint as decimal strings, LegacyDec with 18 decimals, RFC 3339 dates', async () => {
      const chain = createChainClient({ baseUrl });
      const params = await chain.get('/ixo/claims/params');
      expect(params).toEqual(await raw('/ixo/claims/params'));
      expect(params.params).toMatchObject({
        collection_sequence: '13',
        network_fee_percentage: '1.500000000000000000',
        node_fee_percentage: '0.500000000000000000',
      });

      const first = node.seed.claims[0]!;
      const { claim } = await chain.get('/ixo/claims/claim/{id}', {
        params: { path: { id: String(first.claim_id) } },
      });
      const typed: Claim = claim!;
      expect(typed).toEqual(
        ((await raw(`/ixo/claims/claim/${String(first.claim_id)}`)) as { claim: Claim }).claim,
      );
      expect(typed.collection_id).toBe(first.collection_id);
      expect(typed.submission_date).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);

      const minter = String(node.seed.tokens[1]!.minter);
      const { tokenDocs } = await chain.get('/ixo/token/minter/{minter}', { params: { path: { minter } } });
      // Uint (cap, supply): decimal strings, whatever their size.
      const seeded = node.seed.tokens.filter((token) => token.minter === minter);
      expect(tokenDocs.map((token) => [token.name, token.cap, token.supply]).sort()).toEqual(
        seeded.map((token) => [token.name, token.cap, token.supply]).sort(),
      );
      expect(tokenDocs.map((token) => token.supply)).toContain('24690');

      const collection = await chain.get('/ixo/claims/collection/{id}', { params: { path: { id: '2' } } });
      expect(collection.collection!.min_deposit_period).toBe('604800s');
    });
  });

  describe('errors a caller can branch on', () => {
    it('an answer outside 2xx is an HttpError with the status and the {code, message, details} body', async () => {
      const chain = createChainClient({ baseUrl });
      const failure = await chain
        .get('/ixo/claims/claim/{id}', { params: { path: { id: 'no-such-claim' } } })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(HttpError);
      const expectedBody = await raw('/ixo/claims/claim/no-such-claim');
      expect(failure).toMatchObject({ status: 404, body: expectedBody });
      expect(grpcStatus(failure)).toEqual(expectedBody);
      expect(grpcStatus(failure)!.code).toBe(GrpcCode.NOT_FOUND);

      const both = await chain
        .get('/ixo/claims/claims', {
          params: { query: { 'pagination.key': 'AA==', 'pagination.offset': '1' } },
        })
        .catch((error: unknown) => error);
      expect(both).toMatchObject({
        status: 400,
        body: {
          code: 3,
          message: 'paginate: invalid request, either offset or key is expected, got both',
          details: [],
        },
      });
    });

    it('a 503 of the gateway (node unavailable) is retried, and the answer comes back once the node heals', async () => {
      failures.set('ixo.claims.v1beta1.Query/Params', GrpcCode.UNAVAILABLE);
      const calls = () => node.calls.get('ixo.claims.v1beta1.Query/Params') ?? 0;
      const before = calls();
      const statuses: number[] = [];
      const chain = createChainClient({
        baseUrl,
        retry: { retries: 3, minDelayMs: 1 },
        // Sees each attempt's answer: the node heals after the first 503.
        fetch: async (request) => {
          const response = await fetch(request);
          statuses.push(response.status);
          failures.clear();
          return response;
        },
      });
      expect(await chain.get('/ixo/claims/params')).toEqual(await raw('/ixo/claims/params'));
      expect(statuses).toEqual([503, 200]);
      expect(calls() - before).toBe(3); // two attempts, then `raw`
    });

    it('a node that stays unavailable: the retries are bounded, then the 503 HttpError', async () => {
      failures.set('ixo.claims.v1beta1.Query/Params', GrpcCode.UNAVAILABLE);
      const before = node.calls.get('ixo.claims.v1beta1.Query/Params') ?? 0;
      const chain = createChainClient({ baseUrl, retry: { retries: 2, minDelayMs: 1 } });
      const failure = await chain.get('/ixo/claims/params').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(HttpError);
      expect(grpcStatus(failure)).toMatchObject({ code: GrpcCode.UNAVAILABLE });
      expect((node.calls.get('ixo.claims.v1beta1.Query/Params') ?? 0) - before).toBe(3);
    });

    it('nothing listening is a NetworkError; an answer slower than the timeout a TimeoutError', async () => {
      const nowhere = createChainClient({
        baseUrl: `http://127.0.0.1:${await closedPort()}`,
        retry: { minDelayMs: 1 },
      });
      const refused = await nowhere.get('/ixo/token/params').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(NetworkError);
      expect((refused as Error).message).toContain('ECONNREFUSED');

      // TokenMetadata is answered 2 s late by this node; the gateway's deadline is longer.
      const chain = createChainClient({ baseUrl, timeoutMs: 10_000 });
      const id = [...node.seed.tokenMetadata.keys()][0]!;
      const late = await chain
        .get('/ixo/token/metadata/{id}', { params: { path: { id } }, timeoutMs: 200 })
        .catch((error: unknown) => error);
      expect(late).toBeInstanceOf(TimeoutError);
      expect(late).toMatchObject({ timeoutMs: 200 });
    });

    it("the caller's AbortSignal ends the call with its reason", async () => {
      const chain = createChainClient({ baseUrl });
      const controller = new AbortController();
      const id = [...node.seed.tokenMetadata.keys()][0]!;
      const call = chain.get('/ixo/token/metadata/{id}', {
        params: { path: { id } },
        signal: controller.signal,
      });
      const reason = new Error('the user left the page');
      controller.abort(reason);
      await expect(call).rejects.toBe(reason);
    });
  });
});
