import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './environment';

/** A built service running in a process of its own, as an operator starts it (`node dist/main.js`). */
export interface ServiceProcess {
  /** Where it listens, e.g. `http://127.0.0.1:40123`. */
  url: string;
  /** What it wrote to stdout and stderr so far (for a failure message). */
  output(): string;
  /** SIGTERM, as Kubernetes stops a pod; resolves with the exit code once the process has drained and exited. */
  stop(): Promise<number | null>;
}

/**
 * Starts `apps/<app>/dist/main.js` with `env` (and PATH) on a free port, and resolves once the service announces
 * where it listens (libs/http-kit `announceListening`, over the IPC channel). For what only a real process shows:
 * instrumentation that hooks `require`, which jest's module registry bypasses.
 */
export async function startServiceProcess(app: string, env: Record<string, string>): Promise<ServiceProcess> {
  const main = join(REPO_ROOT, 'apps', app, 'dist', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: build first (node scripts/pnpm.mjs run build)`);
  const child = spawn(process.execPath, [main], {
    env: { PATH: process.env.PATH, HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const listening = await new Promise<string>((resolve, reject) => {
    child.once('message', (message: { listening: string }) => resolve(message.listening));
    void exited.then((code) => reject(new Error(`${app} exited ${code} before it listened:\n${output}`)));
  });
  return {
    url: listening,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
