import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The same depth from `bench/src/harness` (jest) and `bench/dist/harness` (built), so both find the repo. */
export const REPO_ROOT = join(__dirname, '..', '..', '..');

export const BENCH_DIST = join(REPO_ROOT, 'bench', 'dist');

export function repoPath(...segments: string[]): string {
  return join(REPO_ROOT, ...segments);
}

export function floorScript(name: 'registry' | 'ussd' | 'protocol' | 'constant' | 'copy'): string {
  return join(BENCH_DIST, 'floors', `${name}-floor.js`);
}

/** Names every missing build output at once, so one message says what to build. */
export function assertBuilt(files: string[]): void {
  const missing = files.filter((file) => !existsSync(file));
  if (missing.length > 0) {
    throw new Error(
      `build output missing: ${missing.map((file) => file.slice(REPO_ROOT.length + 1)).join(', ')}. ` +
        'Run `node scripts/pnpm.mjs run build` (or `npm run bench`, which builds first).',
    );
  }
}
