// The import graph of production code, checked in `npm run lint` (docs/architecture.md, "Layers"):
// - no cycles between files, type-only imports included;
// - apps never import each other; libs and tools never import an app; nothing imports libs/testing but tests;
// - inside each app, folders ("rooms") sit in layers, top to bottom: a room imports only rooms of lower layers (and
//   its own files); rooms of one layer never import each other; every folder of an app is in exactly one layer.
// Tests (`*.spec.ts` and the rest, `test/`) may import anything of their app.

/** Top to bottom. `.` is the app's own root files (main.ts, bootstrap.ts, app.module.ts, cli.ts). */
const APP_LAYERS = {
  'registry-api': [
    ['.'],
    ['cli'],
    ['hello', 'openapi', 'signing'],
    ['registry', 'loader'],
    ['auth', 'rate-limit'],
    ['http', 'telemetry'],
    ['database'],
    ['config'],
    ['domain'],
  ],
  'ussd-gateway': [
    ['.'],
    ['simulator', 'status'],
    ['ussd'],
    ['operators', 'events'],
    ['accounts', 'orders'],
    ['menus'],
    ['phone-languages', 'sessions', 'rate-limit', 'telemetry'],
    ['redis', 'database', 'contract'],
    ['config'],
    ['domain'],
  ],
  'protocol-gateway': [
    ['.'],
    ['http', 'openapi'],
    ['pipeline'],
    ['access', 'caching', 'routes'],
    ['transcoding', 'upstream'],
    ['errors', 'config'],
  ],
};

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const roomPath = (app, room) =>
  room === '.' ? `^apps/${escape(app)}/src/[^/]+\\.ts$` : `^apps/${escape(app)}/src/${escape(room)}/`;
const anyOf = (patterns) => `(${patterns.join('|')})`;

function layerRules(app, layers) {
  const rules = [];
  layers.forEach((layer, index) => {
    const above = layers.slice(0, index).flat();
    for (const room of layer) {
      const siblings = layer.filter((other) => other !== room);
      const forbidden = [...above, ...siblings];
      if (forbidden.length === 0) continue;
      rules.push({
        name: `${app}-layers`,
        comment: `${app}: ${room === '.' ? 'the root files' : `${room}/`} import only rooms of lower layers (${app} in docs/architecture.md)`,
        severity: 'error',
        from: { path: roomPath(app, room), pathNot: TEST_FILES },
        to: { path: anyOf(forbidden.map((other) => roomPath(app, other))) },
      });
    }
  });
  rules.push({
    name: `${app}-room-without-layer`,
    comment: `${app}: every folder of src/ belongs to one layer in .dependency-cruiser.cjs and docs/architecture.md`,
    severity: 'error',
    from: {
      path: `^apps/${escape(app)}/src/`,
      pathNot: anyOf([...layers.flat().map((room) => roomPath(app, room)), TEST_FILES]),
    },
    to: {},
  });
  return rules;
}

const TEST_FILES =
  '(\\.(spec|int-spec|e2e-spec|smoke-spec|scale-spec|containers-spec|contract)\\.ts$|-spec-kit\\.ts$|/test/)';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Two files that import each other (directly or round) are one unit or miss a third file.',
      severity: 'error',
      from: { pathNot: TEST_FILES },
      to: { circular: true, viaOnly: { pathNot: TEST_FILES } },
    },
    {
      name: 'apps-never-import-each-other',
      severity: 'error',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'libs-and-tools-never-import-apps',
      severity: 'error',
      from: { path: '^(libs|tools|bench)/', pathNot: TEST_FILES },
      to: { path: '^apps/' },
    },
    {
      name: 'testing-lib-for-tests-only',
      severity: 'error',
      from: { path: '^(apps|libs|tools)/[^/]+/src/', pathNot: `(${TEST_FILES}|^libs/testing/)` },
      to: { path: '^libs/testing/' },
    },
    ...Object.entries(APP_LAYERS).flatMap(([app, layers]) => layerRules(app, layers)),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(/dist/|/node_modules/)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.js', '.json'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
