import { loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import { parse } from 'protobufjs';
import { parsePathTemplate, TemplateSyntaxError } from './path-template';
import { RouteMatch, RouteTable } from './route-table';

/** What the pipeline does with matchPath: the first (most specific) route of the request's HTTP method. */
function matchFor(routes: RouteTable, httpMethod: string, path: string): RouteMatch | undefined {
  return routes.matchPath(path).find((match) => match.route.httpMethod === httpMethod);
}

const root = loadProtoRoot(QUERY_PROTO_FILES);
const table = RouteTable.fromRoot(root, QUERY_SERVICES);

describe('route table built from google.api.http annotations', () => {
  // REFERENCE §3: every route a Cosmos client of the ixo chain calls.
  const reference: Array<[string, string, Record<string, string>]> = [
    ['/ixo/entity/params', 'ixo.entity.v1beta1.Query/Params', {}],
    ['/ixo/entity/did:ixo:entity:abc', 'ixo.entity.v1beta1.Query/Entity', { id: 'did:ixo:entity:abc' }],
    [
      '/ixo/entity/did:ixo:entity:abc/metadata',
      'ixo.entity.v1beta1.Query/EntityMetaData',
      { id: 'did:ixo:entity:abc' },
    ],
    [
      '/ixo/entity/did:ixo:entity:abc/iiddocument',
      'ixo.entity.v1beta1.Query/EntityIidDocument',
      { id: 'did:ixo:entity:abc' },
    ],
    [
      '/ixo/entity/did:ixo:entity:abc/verified',
      'ixo.entity.v1beta1.Query/EntityVerified',
      { id: 'did:ixo:entity:abc' },
    ],
    ['/ixo/entity', 'ixo.entity.v1beta1.Query/EntityList', {}],
    ['/ixo/claims/params', 'ixo.claims.v1beta1.Query/Params', {}],
    ['/ixo/claims/collection/4', 'ixo.claims.v1beta1.Query/Collection', { id: '4' }],
    ['/ixo/claims/collections', 'ixo.claims.v1beta1.Query/CollectionList', {}],
    ['/ixo/claims/claim/bafk1', 'ixo.claims.v1beta1.Query/Claim', { id: 'bafk1' }],
    ['/ixo/claims/claims', 'ixo.claims.v1beta1.Query/ClaimList', {}],
    ['/ixo/claims/dispute/bafk2', 'ixo.claims.v1beta1.Query/Dispute', { proof: 'bafk2' }],
    ['/ixo/claims/disputes', 'ixo.claims.v1beta1.Query/DisputeList', {}],
    [
      '/ixo/claims/intent/ixo1a/4/9',
      'ixo.claims.v1beta1.Query/Intent',
      { agentAddress: 'ixo1a', collectionId: '4', id: '9' },
    ],
    ['/ixo/claims/intents', 'ixo.claims.v1beta1.Query/IntentList', {}],
    ['/ixo/token/params', 'ixo.token.v1beta1.Query/Params', {}],
    ['/ixo/token/metadata/ab12', 'ixo.token.v1beta1.Query/TokenMetadata', { id: 'ab12' }],
    ['/ixo/token/minter/ixo1m', 'ixo.token.v1beta1.Query/TokenList', { minter: 'ixo1m' }],
    [
      '/ixo/token/minter/ixo1m/ixo1c',
      'ixo.token.v1beta1.Query/TokenDoc',
      { minter: 'ixo1m', contract_address: 'ixo1c' },
    ],
    ['/ixo/did/dids', 'ixo.iid.v1beta1.Query/IidDocuments', {}],
    ['/ixo/did/dids/did:ixo:abc', 'ixo.iid.v1beta1.Query/IidDocument', { id: 'did:ixo:abc' }],
    // Newer claims methods sharing a prefix with Collection: the longer, more literal template wins.
    [
      '/ixo/claims/collection/4/members',
      'ixo.claims.v1beta1.Query/CollectionMemberList',
      { collectionId: '4' },
    ],
    [
      '/ixo/claims/collection/4/member/ixo1x',
      'ixo.claims.v1beta1.Query/CollectionMember',
      { collectionId: '4', memberAddress: 'ixo1x' },
    ],
    [
      '/ixo/claims/collection/4/deposit/ixo1a',
      'ixo.claims.v1beta1.Query/AgentDepositBalance',
      { collectionId: '4', agentAddress: 'ixo1a' },
    ],
    [
      '/ixo/claims/collection/4/deposits',
      'ixo.claims.v1beta1.Query/AgentDepositBalanceList',
      { collectionId: '4' },
    ],
    [
      '/ixo/claims/dispute-by-subject/bafk1/DISPUTE_TARGET_ROLE_SUBMITTER',
      'ixo.claims.v1beta1.Query/DisputeBySubject',
      { subjectId: 'bafk1', targetRole: 'DISPUTE_TARGET_ROLE_SUBMITTER' },
    ],
    [
      '/ixo/claims/disputes-for-subject/bafk1',
      'ixo.claims.v1beta1.Query/DisputeListForSubject',
      { subjectId: 'bafk1' },
    ],
  ];

  it.each(reference)('GET %s → %s', (path, rpc, params) => {
    const match = matchFor(table, 'GET', path);
    expect(match?.route.fullMethod).toBe(rpc);
    expect(Object.fromEntries(match!.pathParams)).toEqual(params);
  });

  it('holds every annotated method of the chain modules, each in the reference table', () => {
    expect(table.routes.map((route) => route.fullMethod).sort()).toEqual(
      [...new Set(reference.map(([, rpc]) => rpc))].sort(),
    );
  });

  it('lets literal segments win over variables whatever the declaration order', () => {
    const reversed = parse(
      `syntax = "proto3"; package t; import "google/api/annotations.proto";
       message R { string id = 1; } message S {}
       service Q {
         rpc ById(R) returns (S) { option (google.api.http).get = "/ixo/x/{id}"; }
         rpc Params(R) returns (S) { option (google.api.http).get = "/ixo/x/params"; }
       }`,
      root,
      { keepCase: true },
    ).root;
    reversed.resolveAll();
    const own = RouteTable.fromRoot(reversed, ['t.Q']);
    expect(matchFor(own, 'GET', '/ixo/x/params')?.route.method).toBe('Params');
    expect(matchFor(own, 'GET', '/ixo/x/other')?.route.method).toBe('ById');
  });

  it('percent-decodes path values (an encoded DID is the same DID)', () => {
    const match = matchFor(table, 'GET', '/ixo/entity/did%3Aixo%3Aentity%3Aabc');
    expect(match?.pathParams).toEqual([['id', 'did:ixo:entity:abc']]);
  });

  it.each([
    '/ixo/entity/',
    '/ixo/entity//metadata',
    '/ixo/entity/%E0%A4%A',
    '/ixo/tokens/params',
    '/ixo',
    '/',
    '/ixo/entity/a/b/c',
  ])('matches nothing for %s', (path) => {
    expect(matchFor(table, 'GET', path)).toBeUndefined();
  });

  it('knows a path exists for another verb (for 405)', () => {
    expect(matchFor(table, 'POST', '/ixo/token/params')).toBeUndefined();
    expect(table.matchPath('/ixo/token/params')).toHaveLength(1);
  });

  it('mounts the routes at the configured prefix instead of /ixo', () => {
    const mounted = RouteTable.fromRoot(root, QUERY_SERVICES, 'api/chain');
    expect(matchFor(mounted, 'GET', '/api/chain/token/params')?.route.fullMethod).toBe(
      'ixo.token.v1beta1.Query/Params',
    );
    expect(matchFor(mounted, 'GET', '/ixo/token/params')).toBeUndefined();
  });
});

describe('path templates', () => {
  it('parses variables with patterns, ** and a verb', () => {
    const template = parsePathTemplate('/v1/{name=shelves/*/books/*}/{rest=**}:get');
    expect(template.verb).toBe('get');
    expect(template.variables).toEqual([
      { fieldPath: 'name', start: 1, end: 5 },
      { fieldPath: 'rest', start: 5, end: 6 },
    ]);
  });

  it('matches multi-segment variables and verbs', () => {
    const custom = parse(
      `syntax = "proto3"; package u; import "google/api/annotations.proto";
       message R { string name = 1; string rest = 2; } message S {}
       service Q { rpc Get(R) returns (S) { option (google.api.http) = { get: "/ixo/{name=shelves/*}/{rest=**}:peek" }; } }`,
      root,
      { keepCase: true },
    ).root;
    custom.resolveAll();
    const own = RouteTable.fromRoot(custom, ['u.Q']);
    expect(matchFor(own, 'GET', '/ixo/shelves/1/a/b/c:peek')?.pathParams).toEqual([
      ['name', 'shelves/1'],
      ['rest', 'a/b/c'],
    ]);
    expect(matchFor(own, 'GET', '/ixo/shelves/1/a')).toBeUndefined();
  });

  it('lists every matching route, most specific first, whatever the number of segments', () => {
    const mixed = parse(
      `syntax = "proto3"; package m; import "google/api/annotations.proto";
       message R { string x = 1; string y = 2; string p = 3; } message S {}
       service Q {
         rpc Rest(R) returns (S) { option (google.api.http).get = "/ixo/{p=**}"; }
         rpc ARest(R) returns (S) { option (google.api.http).get = "/ixo/a/{y=**}"; }
         rpc AX(R) returns (S) { option (google.api.http).get = "/ixo/a/{x}"; }
         rpc AB(R) returns (S) { option (google.api.http).get = "/ixo/a/b"; }
         rpc ABC(R) returns (S) { option (google.api.http).get = "/ixo/a/b/c"; }
         rpc Peek(R) returns (S) { option (google.api.http).get = "/ixo/c/{x}:peek"; }
       }`,
      root,
      { keepCase: true },
    ).root;
    mixed.resolveAll();
    const own = RouteTable.fromRoot(mixed, ['m.Q']);
    const found = (path: string): Array<[string, Array<[string, string]>]> =>
      own.matchPath(path).map((match) => [match.route.method, match.pathParams]);
    expect(found('/ixo')).toEqual([['Rest', [['p', '']]]]);
    expect(found('/ixo/a')).toEqual([
      ['ARest', [['y', '']]],
      ['Rest', [['p', 'a']]],
    ]);
    expect(found('/ixo/a/b')).toEqual([
      ['AB', []],
      ['AX', [['x', 'b']]],
      ['ARest', [['y', 'b']]],
      ['Rest', [['p', 'a/b']]],
    ]);
    expect(found('/ixo/c/1:peek')).toEqual([
      ['Peek', [['x', '1']]],
      ['Rest', [['p', 'c/1:peek']]],
    ]);
    expect(found('/ixo/c/1')).toEqual([['Rest', [['p', 'c/1']]]]);
    expect(found('/ixo/a/b/c')).toEqual([
      ['ABC', []],
      ['ARest', [['y', 'b/c']]],
      ['Rest', [['p', 'a/b/c']]],
    ]);
    expect(found('/ixo/a/b/c/d/e/f/g/h')).toEqual([
      ['ARest', [['y', 'b/c/d/e/f/g/h']]],
      ['Rest', [['p', 'a/b/c/d/e/f/g/h']]],
    ]);
    expect(found('/ixo/a/%2Fb%3A')).toEqual([
      ['AX', [['x', '/b:']]],
      ['ARest', [['y', '/b:']]],
      ['Rest', [['p', 'a//b:']]],
    ]);
    expect(found('/other/a/b')).toEqual([]);
  });

  it.each(['ixo/x', '/ixo/{', '/ixo/{a b}', '/ixo/**/x', '/ixo/{id}/{id}', '/ixo/a b'])(
    'rejects %j',
    (template) => {
      expect(() => parsePathTemplate(template)).toThrow(TemplateSyntaxError);
    },
  );
});
