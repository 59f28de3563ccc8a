import { fileDescriptors, loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import { advertisedServiceFile } from '../../test/advertised-service';
import type { ReflectionState } from '../upstream/reflection-monitor';
import { RefusalReason, ServedRoutes } from './served-routes';

const compiled = loadProtoRoot(QUERY_PROTO_FILES);
const ours = fileDescriptors(compiled);
const odd = advertisedServiceFile('odd.v1', [
  { name: 'Root', rule: { get: '/' } },
  { name: 'Write', rule: { post: '/odd/write', additional_bindings: [{ get: '/odd/read/{id}' }] } },
  { name: 'Shaped', rule: { get: '/odd/shaped', response_body: 'id' } },
  { name: 'Watch', rule: { get: '/odd/watch' }, serverStreaming: true },
]);

function known(descriptors: readonly Uint8Array[], tooLarge = false): ReflectionState {
  return {
    kind: 'known',
    services: new Set(['ixo.token.v1beta1.Query', 'odd.v1.Query']),
    descriptors,
    tooLarge,
    checkedAt: new Date(0),
  };
}

function served(maxReflectedRoutes = 100): { routes: ServedRoutes; refused: RefusalReason[] } {
  const refused: RefusalReason[] = [];
  const routes = new ServedRoutes(compiled, QUERY_SERVICES, {
    prefix: 'ixo',
    maxReflectedRoutes,
    onRefused: (reason) => refused.push(reason),
  });
  return { routes, refused };
}

describe("ServedRoutes against a node's descriptors", () => {
  it('serves the GET bindings and lists every other one with its reason', () => {
    const { routes, refused } = served();
    expect(routes.update(known([...ours, odd]))).toBe(true);
    const odds = routes.current.table.routes.filter((route) => route.service === 'odd.v1.Query');
    expect(odds.map((route) => `${route.httpMethod} ${route.pattern}`)).toEqual(['GET /odd/read/{id}']);
    expect(
      routes.current.skipped.map(({ fullMethod, binding, reason }) => [fullMethod, binding, reason]),
    ).toEqual([
      ['odd.v1.Query/Root', 'GET /', 'invalid-template'],
      ['odd.v1.Query/Write', 'POST /odd/write', 'not-get'],
      ['odd.v1.Query/Shaped', 'GET /odd/shaped', 'unsupported'],
      ['odd.v1.Query/Watch', 'GET /odd/watch', 'unsupported'],
    ]);
    expect(refused).toEqual([]);
  });

  it.each<[string, number, () => ReflectionState, RefusalReason]>([
    ['more routes than the limit', 2, () => known([...ours, odd]), 'too-many-routes'],
    ['answers past the byte limit', 100, () => known([], true), 'too-large'],
    ['bytes that are no descriptor', 100, () => known([Buffer.from([0xff, 0xff, 0xff])]), 'unresolvable'],
    [
      'files whose references do not resolve',
      100,
      () => known([odd, ours[ours.length - 1]!]),
      'unresolvable',
    ],
  ])('refuses %s once, and keeps the routes', (_name, limit, state, reason) => {
    const { routes, refused } = served(limit);
    const before = routes.current;
    expect(routes.update(state())).toBe(false);
    expect(routes.update(state())).toBe(false);
    expect(refused).toEqual([reason]);
    expect(routes.current).toBe(before);
  });
});
