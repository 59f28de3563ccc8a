// What scripts/generate-registry-client.mjs and scripts/generate-chain-client.mjs share: read a service's served
// OpenAPI document (from its built dist, started in-process, or with `--url` from a running service), render it with
// openapi-typescript (the client package's own dev dependency) and write it, or with `--check` write nothing and exit
// 1 when the file differs from what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

async function servedDocument(url, service) {
  if (url) {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    return response.json();
  }
  const require = createRequire(import.meta.url);
  const { bootstrap } = require(join(root, service.bootstrap));
  const { app } = await bootstrap(service.env);
  try {
    await app.init();
    await app.getHttpAdapter().getInstance().ready();
    const response = await app.inject({ method: 'GET', url: service.documentPath });
    if (response.statusCode !== 200)
      throw new Error(`GET ${service.documentPath} answered ${response.statusCode}`);
    return JSON.parse(response.body);
  } finally {
    await app.close();
  }
}

/**
 * `client`: { dir: 'libs/<client>', name: '@dmrv/<client>' }; `service`: { bootstrap: its dist/bootstrap.js, env,
 * documentPath }; `header`: the comment the generated file starts with.
 */
export async function generateClientTypes({ client, service, header }) {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, check: { type: 'boolean', default: false } },
  });
  const target = join(root, client.dir, 'src/openapi.generated.ts');
  const fromClient = createRequire(join(root, client.dir, 'package.json'));
  const { default: openapiTS, astToString } = await import(
    pathToFileURL(fromClient.resolve('openapi-typescript').replace(/\.cjs$/, '.mjs')).href
  );
  const document = await servedDocument(values.url, service);
  const text = header + astToString(await openapiTS(document, { alphabetize: true }));
  const shown = relative(root, target);
  if (!values.check) {
    writeFileSync(target, text);
    process.stdout.write(`wrote ${shown}\n`);
    return;
  }
  let current = '';
  try {
    current = readFileSync(target, 'utf8');
  } catch {
    // missing: differs
  }
  if (current !== text) {
    process.stderr.write(
      `${shown} differs from the types of the served document: run \`node scripts/pnpm.mjs --filter ${client.name} run generate\`\n`,
    );
    process.exit(1);
  }
  process.stdout.write(`${shown} is current\n`);
}
