import { execFile, spawn } from 'node:child_process';

export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs podman and resolves with its exit code and output (never rejects on a non-zero exit). */
export function podman(
  args: string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'podman',
      args,
      { maxBuffer: 64 * 1024 * 1024, timeout: options.timeoutMs ?? 120_000 },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number') {
          reject(new Error(`podman ${args.join(' ')}: ${error.message}\n${stderr}`));
          return;
        }
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Runs podman and returns its stdout; a non-zero exit throws with stderr. */
export async function podmanOk(
  args: string[],
  options: { input?: string; timeoutMs?: number } = {},
): Promise<string> {
  const result = await podman(args, options);
  if (result.code !== 0)
    throw new Error(`podman ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
  return result.stdout;
}

/**
 * A long podman command (an image build) with its output streamed to a callback, so a slow build shows progress in
 * the log instead of minutes of silence.
 */
export function podmanStreaming(args: string[], onLine: (line: string) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn('podman', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const feed = (chunk: Buffer) => {
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    };
    child.stdout.on('data', feed);
    child.stderr.on('data', feed);
    child.on('error', reject);
    child.on('close', (code) => {
      if (pending) onLine(pending);
      resolve(code ?? 1);
    });
  });
}

/**
 * Polls `check` until it returns a value (not undefined) or the deadline passes. For states podman only reports when
 * asked (a health status, a pod's containers), never as a stand-in for an event we could await.
 */
export async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  { timeoutMs, intervalMs = 1_000 }: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not reached within ${timeoutMs} ms${last ? ` (last error: ${String(last)})` : ''}`,
      );
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

export interface ContainerState {
  Status: string;
  Running: boolean;
  ExitCode: number;
  Health?: { Status: string };
  Healthcheck?: { Status: string };
}

export interface ContainerInspect {
  Id: string;
  Name: string;
  State: ContainerState;
  Config: { User: string; Healthcheck?: { Test: string[] } };
  HostConfig: {
    ReadonlyRootfs: boolean;
    CapDrop?: string[];
    SecurityOpt?: string[];
    PortBindings?: Record<string, Array<{ HostIp: string; HostPort: string }> | null>;
  };
  NetworkSettings: {
    Networks?: Record<string, { IPAddress: string }>;
    Ports?: Record<string, Array<{ HostIp: string; HostPort: string }> | null>;
  };
}

export async function inspect(container: string): Promise<ContainerInspect> {
  const [parsed] = JSON.parse(await podmanOk(['container', 'inspect', container])) as ContainerInspect[];
  return parsed!;
}

/** The process table entry of a container's PID 1, from /proc inside it: real uid and effective capabilities. */
export async function mainProcess(container: string): Promise<{ uid: number; capEff: bigint }> {
  const status = await podmanOk(['exec', container, 'cat', '/proc/1/status']);
  const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
  const capEff = BigInt(`0x${/^CapEff:\s+([0-9a-f]+)/m.exec(status)?.[1] ?? 'ffff'}`);
  return { uid, capEff };
}

/** Removes every container, pod, network and volume a test run labelled, whatever state they are in. */
export async function removeLabelled(label: string): Promise<void> {
  const ids = async (kind: string[], field = '{{.ID}}') =>
    (await podman([...kind, '--filter', `label=${label}`, '--format', field])).stdout
      .split('\n')
      .filter(Boolean);
  for (const pod of await ids(['pod', 'ps'])) await podman(['pod', 'rm', '--force', pod]);
  for (const container of await ids(['ps', '-a']))
    await podman(['rm', '--force', '--volumes', '--time', '0', container]);
  for (const network of await ids(['network', 'ls'])) await podman(['network', 'rm', '--force', network]);
  for (const volume of await ids(['volume', 'ls'], '{{.Name}}'))
    await podman(['volume', 'rm', '--force', volume]);
}
