#!/usr/bin/env node
// Marks a package's ES module build as such: a package.json with "type": "module" in its output folder, so Node loads
// the .js files there as ES modules while the package's CommonJS build (dist/cjs) stays CommonJS. Used by the
// published client libraries' build scripts (`node ../../scripts/mark-esm-build.mjs dist/esm`).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = process.argv[2];
if (!folder) throw new Error('usage: mark-esm-build.mjs <folder of the ES module build>');
writeFileSync(join(folder, 'package.json'), '{ "type": "module" }\n');
