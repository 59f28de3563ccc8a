import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Janitor } from './janitor';

export interface StartOptions {
  name: string;
  script: string;
  args?: string[];
  env: NodeJS.ProcessEnv;
  /** Directory for the process's stdout/stderr; shown when something goes wrong. */
  logDir: string;
  /** Options for node itself, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
}

const STOP_GRACE_MS = 10_000;
let started = 0;

/** A Node process the run started: its output goes to a file (like a log collector would read it), not through us. */
export class ManagedProcess {
  private exitInfo: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly exited: Promise<void>;
  private readonly release: () => Promise<void>;

  private constructor(
    readonly name: string,
    private readonly child: ChildProcess,
    readonly logFile: string,
    janitor: Janitor,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitInfo = { code, signal };
        resolve();
      });
    });
    this.release = janitor.defer(`stop ${name}`, () => this.terminate()).release;
  }

  static start(options: StartOptions, janitor: Janitor): ManagedProcess {
    // One file per process, never shared: a second instance must not find the first one's "listening" line.
    started += 1;
    const logFile = join(options.logDir, `${String(started).padStart(2, '0')}-${options.name}.log`);
    const fd = openSync(logFile, 'a');
    try {
      const child = spawn(
        process.execPath,
        [...(options.nodeArgs ?? []), options.script, ...(options.args ?? [])],
        {
          env: options.env,
          // The channel carries a service's `{ listening, metricsPort }` announcement (libs/http-kit runService).
          stdio: ['ignore', fd, fd, 'ipc'],
        },
      );
      return new ManagedProcess(options.name, child, logFile, janitor);
    } finally {
      closeSync(fd);
    }
  }

  get pid(): number {
    return this.child.pid ?? -1;
  }

  get hasExited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** The end of the process's output, for error messages. */
  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no output)';
    }
  }

  describeExit(): string {
    if (!this.exitInfo) return `${this.name} is running`;
    const how = this.exitInfo.signal ? `signal ${this.exitInfo.signal}` : `code ${this.exitInfo.code}`;
    return `${this.name} exited with ${how}; last output (${this.logFile}):\n${this.logTail()}`;
  }

  /**
   * Polls `probe` until it resolves true. Start-up has no event we could await from outside the process,
   * so polling a real request is the honest readiness signal; an early exit fails at once with the output.
   */
  async waitUntil(what: string, probe: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.hasExited) throw new Error(`${this.name} stopped before ${what}: ${this.describeExit()}`);
      if (await probe().catch(() => false)) return;
      await Promise.race([this.exited, new Promise((resolve) => setTimeout(resolve, 100))]);
    }
    throw new Error(`${this.name}: no ${what} within ${timeoutMs} ms; last output:\n${this.logTail()}`);
  }

  /** Waits for an HTTP 200 on `url` (the service's liveness or readiness route). */
  waitForHttp(url: string, timeoutMs?: number): Promise<void> {
    return this.waitUntil(
      `HTTP 200 from ${url}`,
      async () => {
        const response = await fetch(url, { signal: AbortSignal.timeout(2_000) });
        await response.arrayBuffer();
        return response.status === 200;
      },
      timeoutMs,
    );
  }

  /** Waits for the service to say where it listens (it was given port 0 and bound a free one). */
  async waitForAnnouncement(timeoutMs = 60_000): Promise<{ listening: string }> {
    let announced: { listening: string } | undefined;
    const onMessage = (message: unknown) => (announced = message as { listening: string });
    this.child.once('message', onMessage);
    try {
      await this.waitUntil(
        'its listening announcement',
        () => Promise.resolve(announced !== undefined),
        timeoutMs,
      );
    } finally {
      this.child.off('message', onMessage);
    }
    return announced!;
  }

  /** Waits for a line of output matching `pattern`, returns its match. */
  async waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray> {
    let match: RegExpExecArray | null = null;
    await this.waitUntil(
      `output matching ${pattern}`,
      () => {
        match = pattern.exec(this.logTail(200));
        return Promise.resolve(match !== null);
      },
      timeoutMs,
    );
    return match!;
  }

  /** SIGTERM (the services drain and exit 0), SIGKILL after a grace period. */
  stop(): Promise<void> {
    return this.release();
  }

  private async terminate(): Promise<void> {
    if (this.hasExited) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

/** Runs a Node script to completion (a CLI such as `migrate` or `seed`) and returns its stdout. */
export function runToCompletion(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  janitor: Janitor,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const { release } = janitor.defer(`${script} ${args.join(' ')}`, () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    child.once('error', reject);
    child.once('close', (code, signal) => {
      void release();
      const stdout = Buffer.concat(out).toString('utf8');
      if (code === 0) return resolve(stdout);
      const output = `${stdout}${Buffer.concat(err).toString('utf8')}`
        .trimEnd()
        .split('\n')
        .slice(-15)
        .join('\n');
      reject(
        new Error(`\`node ${script} ${args.join(' ')}\` failed (${signal ?? `exit ${code}`}):\n${output}`),
      );
    });
  });
}
