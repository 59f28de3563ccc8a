import fc from 'fast-check';
import { advertisedServiceFile } from './advertised-service';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

/**
 * Property-based fuzz of what a node advertises through reflection: random `google.api.http` rules (every verb,
 * custom kinds, bodies, response_body, nested additional_bindings), path templates that do and do not parse, streaming
 * methods, many methods, bytes that are no descriptor at all, and another rule on a method the node serves. Whatever
 * it is, the gateway starts, answers `/`, serves GET only, and nothing reaches the process's last-resort handlers.
 */

jest.setTimeout(180_000);

const RUNS = 20;
const MAX_ROUTES = 60;
const TOKEN_PARAMS = 'ixo.token.v1beta1.Query/Params';

type Rule = Record<string, unknown>;

const segment = fc.oneof(
  fc.constantFrom(
    '',
    '*',
    '**',
    '{id}',
    '{id=*}',
    '{id=**}',
    '{id=a/*}',
    '{id=}',
    '{=x}',
    '{nope}',
    '{a.b}',
    '{id',
    'id}',
    '{id}{id}',
    'x:verb',
    ':',
    'ixo',
    'fuzz',
    '%2F',
    '..',
  ),
  fc.string({ maxLength: 6 }),
);
const path = fc.oneof(
  fc.array(segment, { maxLength: 6 }).map((segments) => `/${segments.join('/')}`),
  fc.constantFrom('/', '', 'no-slash', '/ixo/token/params', '/ixo/{id}/{id}'),
  fc.string({ maxLength: 16 }),
);
const verb = fc.constantFrom('get', 'get', 'get', 'put', 'post', 'delete', 'patch', 'custom');
const binding = fc
  .record({
    verb,
    path,
    kind: fc.constantFrom('HEAD', 'GET', 'OPTIONS', ''),
    body: fc.option(fc.constantFrom('', '*', 'id', 'nope'), { nil: undefined }),
    responseBody: fc.option(fc.constantFrom('', 'id', 'nope'), { nil: undefined }),
  })
  .map(
    ({ verb: name, path: template, kind, body, responseBody }): Rule => ({
      ...(name === 'custom' ? { custom: { kind, path: template } } : { [name]: template }),
      ...(body === undefined ? {} : { body }),
      ...(responseBody === undefined ? {} : { response_body: responseBody }),
    }),
  );
const rule = fc.tuple(binding, fc.array(binding, { maxLength: 3 }), fc.boolean()).map(
  ([main, extra, nested]): Rule => ({
    ...main,
    additional_bindings: extra.map((item, index) =>
      nested && index === 0 ? { ...item, additional_bindings: [main] } : item,
    ),
  }),
);
const advertisement = fc.record({
  methods: fc.array(fc.record({ rule: fc.option(rule, { nil: null }), serverStreaming: fc.boolean() }), {
    maxLength: 40,
  }),
  tokenParams: fc.option(fc.option(rule, { nil: null }), { nil: undefined }),
  garbage: fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 }), { nil: undefined }),
});

/** A concrete URL for a template-like path: variables and wildcards become one segment. */
function concrete(template: string): string {
  const filled = template.replace(/\{[^}]*\}?/g, 'v').replace(/\*\*?/g, 'v');
  return encodeURI(filled.startsWith('/') ? filled : `/${filled}`).replace(/[?#]/g, '_');
}

function rulePaths(value: Rule): string[] {
  const own = ['get', 'put', 'post', 'delete', 'patch']
    .map((name) => value[name])
    .filter((item): item is string => typeof item === 'string');
  const custom = (value.custom as { path?: string } | undefined)?.path;
  const extra = (value.additional_bindings as Rule[] | undefined) ?? [];
  return [...own, ...(custom === undefined ? [] : [custom]), ...extra.flatMap(rulePaths)];
}

describe('the gateway against random descriptors advertised by the node (fast-check)', () => {
  const lastResort: unknown[] = [];
  const record = (error: unknown): void => {
    lastResort.push(error);
  };

  beforeAll(() => {
    process.on('unhandledRejection', record);
    process.on('uncaughtExceptionMonitor', record);
  });

  afterAll(() => {
    process.off('unhandledRejection', record);
    process.off('uncaughtExceptionMonitor', record);
  });

  it(`starts, lists GET routes only and answers every method as documented (${RUNS} nodes)`, async () => {
    await fc.assert(
      fc.asyncProperty(advertisement, async ({ methods, tokenParams, garbage }) => {
        const files = [
          advertisedServiceFile(
            'fuzz.v1',
            methods.map((method, index) => ({ name: `M${index}`, ...method })),
          ),
          ...(garbage === undefined ? [] : [garbage]),
        ];
        let node: LocalChainNode | undefined;
        let gateway: Gateway | undefined;
        try {
          node = await startNode({
            advertise: {
              services: ['fuzz.v1.Query'],
              files,
              ...(tokenParams === undefined ? {} : { httpRules: { [TOKEN_PARAMS]: tokenParams } }),
            },
          });
          gateway = await startGateway({
            GRPC_UPSTREAM: node.address,
            REFLECTION_MAX_ROUTES: String(MAX_ROUTES),
          });
          const root = await gateway.get('/');
          expect(root.status).toBe(200);
          const routes = root.body.routes as Array<{ method: string; source: string }>;
          expect(routes.every((route) => route.method === 'GET')).toBe(true);
          expect(routes.filter((route) => route.source === 'reflection').length).toBeLessThanOrEqual(
            MAX_ROUTES,
          );
          expect((await gateway.get('/ixo/openapi.json')).status).toBe(200);

          const paths = [
            ...new Set([
              ...methods.flatMap((method) => (method.rule ? rulePaths(method.rule) : [])),
              ...(tokenParams ? rulePaths(tokenParams) : []),
            ]),
          ].slice(0, 20);
          for (const advertised of paths) {
            const url = concrete(advertised);
            for (const method of ['GET', 'POST', 'DELETE', 'PUT', 'PATCH'] as const) {
              const response = await gateway.app.inject({ method, url });
              const allowed = method === 'GET' ? [200, 400, 404, 405, 501] : [404, 405];
              if (!allowed.includes(response.statusCode)) {
                throw new Error(`${method} ${url}: ${response.statusCode} ${response.body}`);
              }
              if (response.statusCode === 405) expect(response.headers.allow).toBe('GET');
            }
          }
          expect(lastResort).toEqual([]);
        } finally {
          await gateway?.close();
          await node?.stop();
        }
      }),
      { numRuns: RUNS, seed: 20261126, endOnFailure: true },
    );
  });
});
