#!/usr/bin/env node
// Writes libs/registry-client/src/generated.ts from the registry API's OpenAPI document: by default the document the
// built service serves (apps/registry-api/dist, so run `node scripts/pnpm.mjs run build` first), or with
// `--url <…/v1/openapi.json>` the one a running service serves.
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const dist = join(root, 'apps/registry-api/dist/openapi');
const { renderClient } = require(join(dist, 'client-codegen.js'));

const urlFlag = process.argv.indexOf('--url');
let document;
if (urlFlag !== -1) {
  const response = await fetch(process.argv[urlFlag + 1]);
  if (!response.ok) throw new Error(`GET ${process.argv[urlFlag + 1]} answered ${response.status}`);
  document = await response.json();
} else {
  document = await require(join(root, 'apps/registry-api/dist/registry-openapi.js')).buildOpenApiDocument(
    '/v1',
  );
}
const target = join(root, 'libs/registry-client/src/generated.ts');
writeFileSync(target, renderClient(document));
console.log(`wrote ${target}`);
