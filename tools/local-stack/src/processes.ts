import { ChildProcess, spawn } from 'node:child_process';
import { createInterface, Interface } from 'node:readline';

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  exited: Promise<number | null>;
  /** Each stdout line; one reader per stream, because closing a second reader would pause the pipe. */
  stdoutLines: Interface;
}

/** Child output, each line prefixed with the service name, so one terminal shows the whole stack. */
function relay(name: string, stream: NodeJS.ReadableStream, sink: NodeJS.WritableStream): Interface {
  const pad = name.padEnd(17);
  const lines = createInterface({ input: stream });
  lines.on('line', (line) => sink.write(`${pad}| ${line}\n`));
  return lines;
}

export function startProcess(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): ManagedProcess {
  // The IPC channel carries the service's ListeningAnnouncement (see libs/http-kit run-service.ts).
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
  const stdoutLines = relay(name, child.stdout!, process.stdout);
  relay(name, child.stderr!, process.stderr);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { name, child, exited, stdoutLines };
}

export interface Announcement {
  listening: string;
  metricsPort?: number;
}

/** Waits for the service's announcement of where it listens (its bound ports, whatever it was asked for). */
export function announcement(managed: ManagedProcess, timeoutMs: number): Promise<Announcement> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${managed.name} did not announce where it listens within ${timeoutMs} ms`)),
      timeoutMs,
    );
    managed.child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as Announcement);
    });
    void managed.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${managed.name} exited with ${code} before it listened`));
    });
  });
}

/** Runs a one-shot command (migrations, seed) and resolves with its stdout; rejects on a non-zero exit. */
export function runToCompletion(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    relay(name, child.stderr, process.stderr);
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${name} (${args.slice(1).join(' ')}) exited with ${code}`)),
    );
  });
}

/** Waits for the first stdout line that parses as JSON (the chain node announces its address that way). */
export function firstJsonLine<T>(managed: ManagedProcess, timeoutMs: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${managed.name} did not announce itself within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const onLine = (line: string): void => {
      if (!line.trim().startsWith('{')) return;
      try {
        const parsed = JSON.parse(line) as T;
        clearTimeout(timer);
        managed.stdoutLines.off('line', onLine);
        resolve(parsed);
      } catch {
        // a log line that merely starts with "{"; keep waiting
      }
    };
    managed.stdoutLines.on('line', onLine);
    void managed.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${managed.name} exited with ${code} before it was ready`));
    });
  });
}

export async function stopProcess(managed: ManagedProcess, graceMs: number): Promise<number | null> {
  if (managed.child.exitCode !== null || managed.child.signalCode !== null) return managed.child.exitCode;
  managed.child.kill('SIGTERM');
  const timer = setTimeout(() => managed.child.kill('SIGKILL'), graceMs);
  const code = await managed.exited;
  clearTimeout(timer);
  return code;
}

export async function waitForHealthy(url: string, timeoutMs: number, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (!alive()) throw new Error(`process behind ${url} exited before it became healthy`);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (response.status === 200) return;
      last = `HTTP ${response.status}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${url} not healthy after ${timeoutMs} ms (${last})`);
}
