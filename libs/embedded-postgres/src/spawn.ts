import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { EmbeddedPostgres } from './embedded-postgres';

export const EMBEDDED_POSTGRES_CLI = join(__dirname, '..', 'dist', 'cli.js');

/**
 * Runs the embedded database in its own process (PGlite's WebAssembly loader needs a plain Node module context,
 * which test runners do not give, and a separate process keeps its memory apart from the services').
 */
export async function spawnEmbeddedPostgres(
  options: { port?: number; dataDir?: string } = {},
): Promise<EmbeddedPostgres> {
  if (!existsSync(EMBEDDED_POSTGRES_CLI)) {
    throw new Error(`${EMBEDDED_POSTGRES_CLI} is missing: build the workspace first (pnpm run build)`);
  }
  const args = [EMBEDDED_POSTGRES_CLI, '--port', String(options.port ?? 0)];
  if (options.dataDir) args.push('--data-dir', options.dataDir);
  const child: ChildProcess = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const firstLine = new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', resolve);
    child.once('exit', (code) =>
      reject(new Error(`embedded PostgreSQL exited with ${code} before it was ready`)),
    );
  });
  const { url, port } = JSON.parse(await firstLine) as { url: string; port: number };
  return {
    url,
    port,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
