import { Metadata } from '@grpc/grpc-js';
import { loadProtoRoot, QUERY_PROTO_FILES } from '@dmrv/proto';
import { STOPPED_PORT } from '@dmrv/testing';
import { entityDid, SEED_COUNTS } from '../../../tools/local-chain-node/src';
import { JsonPrinter } from '../src/transcoding/json-printer';
import { ServedRoutes } from '../src/routes/served-routes';
import { UpstreamClient } from '../src/upstream/upstream-client';
import { Gateway, GatewayAnswer, LocalChainNode, startGateway, startNode } from './harness';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
const UINT64 = /^\d+$/;

describe('protocol gateway over real gRPC to the local chain node', () => {
  let node: LocalChainNode;
  let gateway: Gateway;

  beforeAll(async () => {
    node = await startNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  describe('every route of the reference table answers the JSON a Cosmos node prints', () => {
    it('entity Params', async () => {
      const { status, body } = await gateway.get('/ixo/entity/params');
      expect(status).toBe(200);
      expect(body).toEqual({
        params: { ...node.seed.entityParams, createSequence: String(SEED_COUNTS.entities) },
      });
    });

    it('entity Entity by DID: proto names, defaults, RFC 3339 timestamps, null for an unset message', async () => {
      const did = entityDid(0);
      const { status, body } = await gateway.get(`/ixo/entity/${did}`);
      expect(status).toBe(200);
      expect(body.entity).toEqual({
        id: did,
        type: 'protocol',
        start_date: '2024-01-01T00:00:00Z',
        end_date: null,
        status: 1,
        relayer_node: expect.stringMatching(/^ixo1/),
        credentials: [`${did}#credential-1`],
        entity_verified: true,
        metadata: {
          version_id: `${did}#1`,
          created: '2024-01-01T00:00:00.123Z',
          updated: '2024-01-01T02:00:00Z',
        },
        // Entity.accounts (field 10 of the chain's definition): a gateway decoding with a subset would drop it.
        accounts: [{ name: 'admin', address: expect.stringMatching(/^ixo1/) }],
      });
      expect(body.iidDocument.id).toBe(did);
      expect(Object.keys(body.iidDocument)).toEqual([
        'context',
        'id',
        'controller',
        'verificationMethod',
        'service',
        'authentication',
        'assertionMethod',
        'keyAgreement',
        'capabilityInvocation',
        'capabilityDelegation',
        'linkedResource',
        'linkedClaim',
        'accordedRight',
        'linkedEntity',
        'alsoKnownAs',
        'metadata',
      ]);
      // A oneof prints only its set member.
      expect(body.iidDocument.verificationMethod[1]).toEqual({
        id: `${did}#account`,
        type: 'CosmosAccountAddress',
        controller: did,
        blockchainAccountID: expect.stringMatching(/^ixo1/),
      });
    });

    it('entity Entity by a percent-encoded DID', async () => {
      const did = entityDid(5);
      const { status, body } = await gateway.get(`/ixo/entity/${encodeURIComponent(did)}`);
      expect(status).toBe(200);
      expect(body.entity.id).toBe(did);
    });

    it.each([
      ['metadata', (body: any) => expect(body.entity.id).toBe(entityDid(1))], // eslint-disable-line @typescript-eslint/no-explicit-any
      ['iiddocument', (body: any) => expect(body.iidDocument.id).toBe(entityDid(1))], // eslint-disable-line @typescript-eslint/no-explicit-any
      ['verified', (body: any) => expect(body).toEqual({ entity_verified: false })], // eslint-disable-line @typescript-eslint/no-explicit-any
    ])('entity %s', async (suffix, check) => {
      const { status, body } = await gateway.get(`/ixo/entity/${entityDid(1)}/${suffix}`);
      expect(status).toBe(200);
      check(body);
    });

    it('entity EntityList with pagination', async () => {
      const { status, body } = await gateway.get(
        '/ixo/entity?pagination.limit=3&pagination.count_total=true',
      );
      expect(status).toBe(200);
      expect(body.entities).toHaveLength(3);
      expect(body.entities.map((entity: { id: string }) => entity.id)).toEqual(
        node.seed.entities.slice(0, 3).map((entity) => entity.id),
      );
      expect(body.pagination).toEqual({
        next_key: Buffer.from(String(node.seed.entities[3]!.id)).toString('base64'),
        total: '120',
      });
    });

    it('claims Params: uint64 as strings, decimals as strings', async () => {
      const { status, body } = await gateway.get('/ixo/claims/params');
      expect(status).toBe(200);
      expect(body).toEqual({
        params: {
          collection_sequence: '13',
          ixo_account: expect.stringMatching(/^ixo1/),
          network_fee_percentage: '1.500000000000000000',
          node_fee_percentage: '0.500000000000000000',
          intent_sequence: '31',
        },
      });
    });

    it('claims Collection: enums by name, Durations, every field', async () => {
      const { status, body } = await gateway.get('/ixo/claims/collection/5');
      expect(status).toBe(200);
      expect(body.collection).toMatchObject({
        id: '5',
        entity: entityDid(5),
        protocol: entityDid(0),
        quota: '10000',
        state: 'PAUSED',
        intents: 'DENY',
        end_date: null,
      });
      expect(body.collection.start_date).toBe('2024-01-06T00:00:00Z');
      expect(body.collection.payments.approval).toEqual({
        account: expect.any(String),
        amount: [{ denom: 'uixo', amount: '5000000' }],
        contract_1155_payment: null,
        timeout_ns: '86400s',
        cw20_payment: [{ address: expect.any(String), amount: '2500' }],
        is_oracle_payment: true,
        cw1155_payment: [],
      });
      expect(body.collection).toMatchObject({
        flagged: '0',
        flagged_active: '0',
        service_agent_deposit_required: [],
        dispute_deposit_amount: [],
        min_deposit_period: '0s',
        adjudicators: [],
      });
      expect(Number(body.collection.count)).toBeGreaterThan(0);
      expect(body.collection.count).toMatch(UINT64);
    });

    it('claims CollectionList', async () => {
      const { status, body } = await gateway.get('/ixo/claims/collections');
      expect(status).toBe(200);
      expect(body.collections.map((collection: { id: string }) => collection.id)).toEqual([
        '1',
        '10',
        '11',
        '12',
        '2',
        '3',
        '4',
        '5',
        '6',
        '7',
        '8',
        '9',
      ]);
      // Empty bytes print null, as a Cosmos node prints them.
      expect(body.pagination).toEqual({ next_key: null, total: '0' });
    });

    it('claims Claim by id', async () => {
      const claim = node.seed.claims[1]!;
      const { status, body } = await gateway.get(`/ixo/claims/claim/${String(claim.claim_id)}`);
      expect(status).toBe(200);
      expect(body.claim.claim_id).toBe(claim.claim_id);
      expect(body.claim.submission_date).toMatch(RFC3339);
      expect(Object.values(body.claim.payments_status).every((value) => typeof value === 'string')).toBe(
        true,
      );
    });

    it('claims ClaimList (the benchmark page)', async () => {
      const { status, body } = await gateway.get('/ixo/claims/claims?pagination.limit=50');
      expect(status).toBe(200);
      expect(body.claims).toHaveLength(50);
      expect(body.pagination.next_key).not.toBe('');
    });

    it('claims Dispute by proof and DisputeList', async () => {
      // One the seed resolved: every field of the chain's Dispute, DisputeResolution included.
      const dispute = node.seed.disputes.find((candidate) => candidate.resolution !== null)!;
      const proof = String((dispute.data as { proof: string }).proof);
      const one = await gateway.get(`/ixo/claims/dispute/${proof}`);
      expect(one.status).toBe(200);
      expect(one.body.dispute).toEqual({
        subject_id: dispute.subject_id,
        type: dispute.type,
        data: { uri: `ipfs://${proof}`, type: 'application/ld+json', proof, encrypted: expect.any(Boolean) },
        target_role: expect.stringMatching(/^DISPUTE_TARGET_ROLE_(SUBMITTER|EVALUATOR)$/),
        disputer_address: expect.stringMatching(/^ixo1/),
        disputer_did: expect.stringMatching(/^did:ixo:/),
        dispute_deposit: [{ denom: 'uixo', amount: '5000000' }],
        submitted_at: expect.stringMatching(RFC3339),
        status: 'DISPUTE_STATUS_AWARDED',
        resolution: expect.objectContaining({
          adjudicator_did: expect.stringMatching(/^did:ixo:entity:/),
          resolved_at: expect.stringMatching(RFC3339),
          winner_amount: [{ denom: 'uixo', amount: '900000' }],
          loser_address: expect.stringMatching(/^ixo1/),
        }),
      });
      const list = await gateway.get('/ixo/claims/disputes');
      expect(list.status).toBe(200);
      expect(list.body.disputes).toHaveLength(SEED_COUNTS.disputes);
    });

    it('claims Intent by agent, collection and id, and IntentList', async () => {
      const intent = node.seed.intents[0]!;
      const one = await gateway.get(
        `/ixo/claims/intent/${String(intent.agent_address)}/${String(intent.collection_id)}/${String(intent.id)}`,
      );
      expect(one.status).toBe(200);
      expect(one.body.intent).toMatchObject({
        id: intent.id,
        status: 'ACTIVE',
        claim_id: '',
        expire_at: expect.stringMatching(RFC3339),
      });
      const list = await gateway.get('/ixo/claims/intents?pagination.limit=5');
      expect(list.status).toBe(200);
      expect(list.body.intents).toHaveLength(5);
    });

    it('token Params (the benchmark small message)', async () => {
      const { status, body } = await gateway.get('/ixo/token/params');
      expect(status).toBe(200);
      expect(body).toEqual({ params: { ixo1155_contract_code: '25' } });
    });

    it('token TokenMetadata', async () => {
      const [index, metadata] = [...node.seed.tokenMetadata.entries()][0]!;
      const { status, body } = await gateway.get(`/ixo/token/metadata/${index}`);
      expect(status).toBe(200);
      expect(body).toMatchObject({
        name: metadata.name,
        decimals: '0',
        index,
        properties: { cap: '0', linkedResources: [expect.objectContaining({ type: 'application/json' })] },
      });
    });

    it('token TokenList by minter and TokenDoc by minter and contract', async () => {
      const token = node.seed.tokens[0]!;
      const list = await gateway.get(`/ixo/token/minter/${String(token.minter)}`);
      expect(list.status).toBe(200);
      expect(list.body.tokenDocs).toHaveLength(4);
      expect(Object.keys(list.body)).toEqual(['pagination', 'tokenDocs']);
      const one = await gateway.get(
        `/ixo/token/minter/${String(token.minter)}/${String(token.contract_address)}`,
      );
      expect(one.status).toBe(200);
      expect(one.body.tokenDoc).toMatchObject({
        minter: token.minter,
        contract_address: token.contract_address,
        name: token.name,
        type: 'ixo1155',
      });
    });

    it('iid IidDocuments and IidDocument', async () => {
      const list = await gateway.get('/ixo/did/dids?pagination.limit=10');
      expect(list.status).toBe(200);
      expect(list.body.iidDocuments).toHaveLength(10);
      const did = entityDid(7);
      const one = await gateway.get(`/ixo/did/dids/${did}`);
      expect(one.status).toBe(200);
      expect(one.body.iidDocument.metadata).toEqual({
        versionId: `${did}#1`,
        created: '2024-01-08T00:00:00Z',
        updated: '2024-01-08T01:00:00Z',
        deactivated: false,
      });
    });
  });

  describe('bodies byte for byte as the printer writes them (no second serialisation)', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);

    it.each([
      ['/ixo/token/params', 'ixo.token.v1beta1.Query/Params', {}],
      [`/ixo/entity/${entityDid(0)}`, 'ixo.entity.v1beta1.Query/Entity', { id: entityDid(0) }],
      [
        '/ixo/claims/claims?pagination.limit=50',
        'ixo.claims.v1beta1.Query/ClaimList',
        { pagination: { limit: 50 } },
      ],
      ['/ixo/claims/collection/5', 'ixo.claims.v1beta1.Query/Collection', { id: '5' }],
      ['/ixo/claims/disputes', 'ixo.claims.v1beta1.Query/DisputeList', {}],
      [
        '/ixo/did/dids?pagination.limit=10&pagination.count_total=true',
        'ixo.iid.v1beta1.Query/IidDocuments',
        { pagination: { limit: 10, count_total: true } },
      ],
    ])('%s', async (path, rpc, request) => {
      const response = await gateway.app.inject({ method: 'GET', url: path });
      // The same call straight to the node, printed by the printer: the gateway sends that text as it is.
      const route = gateway.app
        .get(ServedRoutes)
        .current.table.routes.find((candidate) => candidate.fullMethod === rpc)!;
      const payload = Buffer.from(route.requestType.encode(route.requestType.fromObject(request)).finish());
      const upstream = await gateway.app.get(UpstreamClient).unary(route.grpcPath, payload, new Metadata());
      const message = route.responseType.decode(upstream.response);
      const printed = new JsonPrinter(root).print(route.responseType, message);

      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(printed);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(printed)));
    });
  });

  describe('paging with next_key', () => {
    async function walk(limit: number, encodeKey: (key: string) => string, extra = ''): Promise<string[]> {
      const seen: string[] = [];
      let key: string | null = '';
      for (let page = 0; page < 100; page += 1) {
        const query = `pagination.limit=${limit}${key ? `&pagination.key=${encodeKey(key)}` : ''}${extra}`;
        const { status, body } = await gateway.get(`/ixo/claims/claims?${query}`);
        expect(status).toBe(200);
        seen.push(...body.claims.map((claim: { claim_id: string }) => claim.claim_id));
        key = body.pagination.next_key;
        if (key === null) return seen;
      }
      throw new Error('paging did not end');
    }

    it('visits every claim exactly once, in store order', async () => {
      const seen = await walk(50, encodeURIComponent);
      expect(seen).toHaveLength(SEED_COUNTS.claims);
      expect(new Set(seen).size).toBe(SEED_COUNTS.claims);
      expect(seen).toEqual(node.seed.claims.map((claim) => claim.claim_id));
    });

    it('accepts the key URL-safe and unpadded, or not percent-encoded at all', async () => {
      const urlSafe = await walk(70, (key) => key.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''));
      const raw = await walk(70, (key) => key);
      expect(urlSafe).toEqual(node.seed.claims.map((claim) => claim.claim_id));
      expect(raw).toEqual(urlSafe);
    });

    it('walks backwards with pagination.reverse', async () => {
      const seen = await walk(100, encodeURIComponent, '&pagination.reverse=true');
      expect(seen).toEqual(node.seed.claims.map((claim) => claim.claim_id).reverse());
    });

    it('counts on request and pages by offset', async () => {
      const { body } = await gateway.get('/ixo/claims/claims?pagination.offset=255&pagination.countTotal=1');
      expect(body.claims).toHaveLength(5);
      expect(body.pagination).toEqual({ next_key: null, total: String(SEED_COUNTS.claims) });
    });
  });

  describe('headers', () => {
    it('passes x-cosmos-block-height both ways, Grpc-Metadata-* as metadata and the request id', async () => {
      const { status, headers } = await gateway.get('/ixo/token/params', {
        'x-cosmos-block-height': '1234',
        'grpc-metadata-tenant': 'acme',
        'x-request-id': 'req-e2e-1',
      });
      expect(status).toBe(200);
      expect(headers['x-cosmos-block-height']).toBe('1234');
      expect(headers['grpc-metadata-x-cosmos-block-height']).toBe('1234');
      // The node echoes the metadata it received as x-echo-<key>; an echo of the request id is not passed back.
      expect(headers['grpc-metadata-x-echo-tenant']).toBe('acme');
      expect(node.lastMetadata.get('ixo.token.v1beta1.Query/Params')).toMatchObject({
        tenant: 'acme',
        'x-request-id': 'req-e2e-1',
      });
      expect(headers['grpc-metadata-x-echo-x-request-id']).toBeUndefined();
      expect(headers['x-request-id']).toBe('req-e2e-1');
    });

    it('reports the latest height when none was asked for', async () => {
      const { headers } = await gateway.get('/ixo/token/params');
      expect(headers['x-cosmos-block-height']).toBe(String(node.seed.blockHeight));
    });
  });

  describe('query parameters that name no field', () => {
    it('are ignored by default, as grpc-gateway ignores them (cache-busters, parameters of other versions)', async () => {
      const plain = await gateway.get('/ixo/claims/claims?pagination.limit=3');
      const busted = await gateway.get(
        '/ixo/claims/claims?pagination.limit=3&_=1700000000&pagination.limt=9&verbose&__proto__=x',
      );
      expect(busted.status).toBe(200);
      expect(busted.body).toEqual(plain.body);
      expect(busted.body.claims).toHaveLength(3);
    });

    it('are 400 with QUERY_STRICT=true, naming the parameter', async () => {
      const strict = await startGateway({ GRPC_UPSTREAM: node.address, QUERY_STRICT: 'true' });
      try {
        for (const key of ['verbose', 'pagination.limt', '__proto__']) {
          const { status, body } = await strict.get(`/ixo/token/params?${key}=1`);
          expect({ key, status, body }).toEqual({
            key,
            status: 400,
            body: { code: 3, message: `unknown query parameter ${key}`, details: [] },
          });
        }
        expect((await strict.get('/ixo/token/params')).status).toBe(200);
      } finally {
        await strict.close();
      }
    });

    it('still refuse a known parameter with a bad value, whatever QUERY_STRICT says', async () => {
      const { status, body } = await gateway.get('/ixo/claims/claims?pagination.limit=abc&_=1');
      expect(status).toBe(400);
      expect(body.message).toMatch(/pagination.limit/);
    });
  });

  describe('paths of older releases (REFERENCE §3)', () => {
    const claim = (): string => String(node.seed.claims[1]!.claim_id);
    const dispute = (): string => String((node.seed.disputes[0]!.data as { proof: string }).proof);
    const minter = (): string => String(node.seed.tokens[0]!.minter);
    // [legacy path, the current route it names, its template, a value the served answer must carry]
    const legacy = (): Array<[string, string, string, (body: GatewayAnswer['body']) => unknown]> => [
      [
        `/ixo/claim/${claim()}`,
        `/ixo/claims/claim/${claim()}`,
        '/ixo/claims/claim/{id}',
        (body) => body.claim.claim_id,
      ],
      [
        '/ixo/collection/5',
        '/ixo/claims/collection/5',
        '/ixo/claims/collection/{id}',
        (body) => body.collection.id,
      ],
      [
        `/ixo/dispute/${dispute()}`,
        `/ixo/claims/dispute/${dispute()}`,
        '/ixo/claims/dispute/{proof}',
        (body) => body.dispute.data.proof,
      ],
      [
        `/ixo/token/${minter()}`,
        `/ixo/token/minter/${minter()}`,
        '/ixo/token/minter/{minter}',
        (body) => body.tokenDocs.length,
      ],
      [
        `/ixo/project/${entityDid(2)}`,
        `/ixo/entity/${entityDid(2)}`,
        '/ixo/entity/{id}',
        (body) => body.entity.id,
      ],
      [
        `/project/${entityDid(2)}`,
        `/ixo/entity/${entityDid(2)}`,
        '/ixo/entity/{id}',
        (body) => body.entity.id,
      ],
      [
        `/did/${entityDid(3)}`,
        `/ixo/did/dids/${entityDid(3)}`,
        '/ixo/did/dids/{id}',
        (body) => body.iidDocument.id,
      ],
    ];

    it('each answers 404 naming the current route', async () => {
      for (const [path, current, pattern] of legacy()) {
        const { status, body } = await gateway.get(path);
        expect({ path, status, body }).toEqual({
          path,
          status: 404,
          body: {
            code: 5,
            message: `${path} is a route of an older release; the current route is GET ${current} (${pattern})`,
            details: [],
          },
        });
      }
    });

    it('a legacy prefix whose path has no current route names the prefix it moved to', async () => {
      const { status, body } = await gateway.get('/ixo/claim/a/b/c');
      expect(status).toBe(404);
      expect(body.message).toBe(
        '/ixo/claim/ is a route prefix of an older release; its routes are now under /ixo/claims/claim/ (see / for the list)',
      );
    });

    it('never shadows a current route (/ixo/token/params is Params, /ixo/token/metadata is no minter)', async () => {
      expect((await gateway.get('/ixo/token/params')).body).toHaveProperty('params');
      const { status, body } = await gateway.get('/ixo/token/metadata');
      expect(status).toBe(404);
      expect(body.message).toMatch(/^no route for \/ixo\/token\/metadata;/);
    });

    it('with LEGACY_ROUTES=serve each is served as the current route', async () => {
      const serving = await startGateway({ GRPC_UPSTREAM: node.address, LEGACY_ROUTES: 'serve' });
      try {
        for (const [path, current, , pick] of legacy()) {
          const old = await serving.get(path);
          const now = await serving.get(current);
          expect({ path, status: old.status }).toEqual({ path, status: 200 });
          expect(old.body).toEqual(now.body);
          expect(pick(old.body)).toBeTruthy();
        }
      } finally {
        await serving.close();
      }
    });

    it('follow PROTOCOL_PREFIX for the /ixo ones', async () => {
      const mounted = await startGateway({ GRPC_UPSTREAM: node.address, PROTOCOL_PREFIX: 'chain/ixo' });
      try {
        const { status, body } = await mounted.get('/chain/ixo/collection/5');
        expect(status).toBe(404);
        expect(body.message).toBe(
          '/chain/ixo/collection/5 is a route of an older release; the current route is GET /chain/ixo/claims/collection/5 (/chain/ixo/claims/collection/{id})',
        );
      } finally {
        await mounted.close();
      }
    });
  });

  describe('errors: {code, message, details} with the grpc-gateway status table', () => {
    it.each([
      ['a limit that is not a number', '/ixo/claims/claims?pagination.limit=abc', /pagination.limit/],
      [
        'bad base64 in pagination.key',
        '/ixo/claims/claims?pagination.key=a$b',
        /pagination.key: not valid base64/,
      ],
      [
        'key and offset together (refused by the node)',
        '/ixo/claims/claims?pagination.key=AQ==&pagination.offset=3',
        /either offset or key/,
      ],
    ])('400 for %s', async (_name, path, message) => {
      const { status, body } = await gateway.get(path);
      expect(status).toBe(400);
      expect(body).toEqual({ code: 3, message: expect.stringMatching(message), details: [] });
    });

    // Issue 32: a value past the bound is refused before anything is bound, asked or kept.
    it.each([
      ['a path value of 2049 bytes', `/ixo/entity/${'a'.repeat(2049)}`, 'id must be at most 2048 bytes'],
      [
        'a path value of 1025 two-byte characters',
        `/ixo/entity/${'%C3%A9'.repeat(1025)}`,
        'id must be at most 2048 bytes',
      ],
      [
        'a query value of 2049 bytes',
        `/ixo/claims/claims?pagination.key=${'QUFB'.repeat(512)}A`,
        'pagination.key must be at most 2048 bytes',
      ],
      [
        'a 15 KB identifier in a query',
        `/cosmos/bank/v1beta1/balances/ixo1${'a'.repeat(38)}?denom=${'d'.repeat(15_000)}`,
        'denom must be at most 2048 bytes',
      ],
    ])('400 for %s, without a call to the node', async (_name, path, message) => {
      const before = [...node.calls.values()].reduce((sum, count) => sum + count, 0);
      const { status, body } = await gateway.get(path);
      expect({ status, body }).toEqual({ status: 400, body: { code: 3, message, details: [] } });
      expect([...node.calls.values()].reduce((sum, count) => sum + count, 0)).toBe(before);
    });

    it('takes a value of exactly 2048 bytes to the node', async () => {
      const { status, body } = await gateway.get(`/ixo/entity/${'a'.repeat(2048)}`);
      expect({ status, code: body.code }).toEqual({ status: 404, code: 5 });
    });

    it.each([
      ['a height that is not a number', { 'x-cosmos-block-height': 'latest' }, /x-cosmos-block-height/],
      [
        'a height in the future (refused by the node)',
        { 'x-cosmos-block-height': '99999999999' },
        /height in the future/,
      ],
      ['metadata gRPC reserves', { 'grpc-metadata-grpc-timeout': '1S' }, /cannot be forwarded/],
    ])('400 for %s', async (_name, headers, message) => {
      const { status, body } = await gateway.get('/ixo/token/params', headers);
      expect(status).toBe(400);
      expect(body).toEqual({ code: 3, message: expect.stringMatching(message), details: [] });
    });

    it.each([
      ['an unknown path', '/ixo/nothing/here', /no route for \/ixo\/nothing\/here; .* under \/ixo\//],
      [
        'a path outside the prefix that the node does not serve',
        '/cosmos/staking/v1beta1/validators',
        /under \/ixo\//,
      ],
      [
        'an entity that does not exist (NOT_FOUND)',
        `/ixo/entity/did:ixo:entity:${'0'.repeat(32)}`,
        /not found/,
      ],
      [
        'a claim that does not exist (UNKNOWN "not found")',
        '/ixo/claims/claim/bafkmissing',
        /code 1100: claim not found/,
      ],
    ])('404 for %s', async (_name, path, message) => {
      const { status, body } = await gateway.get(path);
      expect(status).toBe(404);
      expect(body).toEqual({ code: 5, message: expect.stringMatching(message), details: [] });
    });

    it.each(['POST', 'PUT', 'DELETE', 'PATCH'])('405 for %s on a GET route, with Allow', async (method) => {
      const response = await gateway.app.inject({
        method: method as 'POST',
        url: '/ixo/token/params',
        payload: method === 'DELETE' ? undefined : {},
      });
      expect(response.statusCode).toBe(405);
      expect(response.headers.allow).toBe('GET');
      expect(response.json()).toEqual({
        code: 12,
        message: `method ${method} is not allowed on /ixo/token/params; use GET`,
        details: [],
      });
    });

    it('501 for a method an older node does not implement', async () => {
      const { status, body } = await gateway.get('/ixo/claims/collection/1/members');
      expect(status).toBe(501);
      expect(body).toEqual({
        code: 12,
        message: 'ixo.claims.v1beta1.Query/CollectionMemberList is not implemented by the upstream node',
        details: [],
      });
    });

    it('501 for a method the operator disabled, without calling the upstream', async () => {
      // Nothing listens upstream: had the gateway called it, the answer would be 503.
      const closed = await startGateway({
        GRPC_UPSTREAM: `127.0.0.1:${STOPPED_PORT}`,
        DISABLED_METHODS: 'ixo.claims.v1beta1.Query/ClaimList,token',
        REFLECTION_ENABLED: 'false',
      });
      try {
        const disabled = await closed.get('/ixo/claims/claims');
        expect(disabled.status).toBe(501);
        expect(disabled.body).toEqual({
          code: 12,
          message: 'ixo.claims.v1beta1.Query/ClaimList is disabled on this gateway',
          details: [],
        });
        expect((await closed.get('/ixo/token/params')).status).toBe(501);
        expect((await closed.get('/ixo/claims/params')).status).toBe(503);
        expect((await closed.get('/')).body.routes).toContainEqual({
          method: 'GET',
          path: '/ixo/claims/claims',
          rpc: 'ixo.claims.v1beta1.Query/ClaimList',
          disabled: true,
          // The node is not reachable: the routes of the protos the gateway is built with.
          source: 'compiled-in',
        });
      } finally {
        await closed.close();
      }
    });
  });

  describe('service endpoints', () => {
    it('/ lists the prefix, what reflection learnt and the routes', async () => {
      const { status, body } = await gateway.get('/');
      expect(status).toBe(200);
      expect(body.prefix).toBe('/ixo');
      expect(body.upstream).toEqual({
        reflection: 'known',
        services: expect.arrayContaining(['ixo.entity.v1beta1.Query', 'ixo.token.v1beta1.Query']),
      });
      expect(body.routes).toContainEqual({
        method: 'GET',
        path: '/ixo/entity/{id}',
        rpc: 'ixo.entity.v1beta1.Query/Entity',
        disabled: false,
        // The local node describes its services through reflection.
        source: 'reflection',
      });
    });

    it('/health is ready with the upstream up', async () => {
      const { status, body } = await gateway.get('/health');
      expect(status).toBe(200);
      expect(body).toEqual({
        status: 'ok',
        checks: { upstream: { status: 'up', latencyMs: expect.any(Number) } },
      });
    });
  });
});

describe('prefix and CORS configuration', () => {
  let node: LocalChainNode;
  let gateway: Gateway;

  beforeAll(async () => {
    node = await startNode();
    gateway = await startGateway({
      GRPC_UPSTREAM: node.address,
      PROTOCOL_PREFIX: 'chain/ixo',
      CORS_ORIGINS: 'https://wallet.example',
    });
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  it('serves the routes under PROTOCOL_PREFIX and names it in 404s', async () => {
    expect((await gateway.get('/chain/ixo/token/params')).status).toBe(200);
    const old = await gateway.get('/ixo/token/params');
    expect(old.status).toBe(404);
    expect(old.body.message).toMatch(/under \/chain\/ixo\//);
  });

  it('answers a preflight from an allowed origin, allowing x-cosmos-block-height', async () => {
    const response = await gateway.app.inject({
      method: 'OPTIONS',
      url: '/chain/ixo/token/params',
      headers: {
        origin: 'https://wallet.example',
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-cosmos-block-height, grpc-metadata-tenant',
      },
    });
    expect(response.statusCode).toBe(204);
    expect(response.headers['access-control-allow-origin']).toBe('https://wallet.example');
    expect(response.headers['access-control-allow-methods']).toBe('GET');
    expect(String(response.headers['access-control-allow-headers'])).toContain('x-cosmos-block-height');
    expect(String(response.headers['access-control-allow-headers'])).toContain('grpc-metadata-tenant');
  });

  it('exposes x-cosmos-block-height to an allowed origin and nothing to others', async () => {
    const allowed = await gateway.get('/chain/ixo/token/params', { origin: 'https://wallet.example' });
    expect(allowed.headers['access-control-allow-origin']).toBe('https://wallet.example');
    expect(allowed.headers['access-control-expose-headers']).toContain('x-cosmos-block-height');
    const other = await gateway.get('/chain/ixo/token/params', { origin: 'https://evil.example' });
    expect(other.status).toBe(200);
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });
});
