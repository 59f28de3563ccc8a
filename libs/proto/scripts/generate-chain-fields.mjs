#!/usr/bin/env node
// Writes apps/protocol-gateway/test/chain-fields.generated.ts, the chain field tables, from the query protos of
// libs/proto/proto (through the built package: run `node scripts/pnpm.mjs --filter @dmrv/proto run build` first).
// `--check` writes nothing and exits 1 when the file differs from what it would write.
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const target = join(repo, 'apps/protocol-gateway/test/chain-fields.generated.ts');
const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });

const proto = createRequire(import.meta.url)('../dist/index.js');
const text = proto.chainFieldsModule(
  proto.chainFieldTables(proto.loadProtoRoot(proto.QUERY_PROTO_FILES), proto.QUERY_SERVICES),
);
const name = relative(repo, target);
if (!values.check) {
  writeFileSync(target, text);
  process.stdout.write(`wrote ${name}\n`);
} else if (readFileSync(target, 'utf8') === text) {
  process.stdout.write(`${name} is current\n`);
} else {
  process.stderr.write(
    `${name} is stale: run \`node scripts/pnpm.mjs --filter @dmrv/proto run generate:chain-fields\`\n`,
  );
  process.exitCode = 1;
}
