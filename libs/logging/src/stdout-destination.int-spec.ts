import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Log lines go to stdout through pino's asynchronous destination: gathered in memory, written off the event loop.
// These tests run a real process writing through the built library, as a service does, and read its stdout: every
// line must be there, in order, however the process ends.
const PACKAGE_DIR = join(__dirname, '..');
const LINES = 5000;

// Two loggers on the shared stdout destination (a service's root and access loggers), logging alternately in one
// turn: more lines than one write takes, then the process ends as argv[1] says.
const WRITER = `
const { createServiceLoggers } = require('./dist/index.js');
const { root, access } = createServiceLoggers({ service: 'stdout-test', level: 'info', pretty: false });
const ending = process.argv[1];
if (ending === 'idle') {
  root.info('one quiet line');
  setInterval(() => {}, 60000);
} else {
  setImmediate(() => {
    for (let i = 0; i < ${LINES}; i += 1) (i % 2 === 0 ? root : access).info({ i }, 'line ' + i);
    if (ending === 'exit') process.exit(0);
    if (ending === 'crash') throw new Error('deliberate crash');
  });
}
`;

interface Ended {
  code: number | null;
  stdout: string;
  stderr: string;
}

function run(ending: 'exit' | 'crash' | 'end'): Promise<Ended> {
  const child = spawn(process.execPath, ['-e', WRITER, ending], {
    cwd: PACKAGE_DIR,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
}

function numbers(stdout: string): number[] {
  return stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { i: number }).i);
}

const ALL = Array.from({ length: LINES }, (_, i) => i);

describe('log lines on stdout (pino.destination, asynchronous)', () => {
  beforeAll(() => {
    if (!existsSync(join(PACKAGE_DIR, 'dist', 'index.js'))) {
      throw new Error('libs/logging is not built: run `node scripts/pnpm.mjs run build` first');
    }
  });

  it('process.exit() in the turn that logged: every line is written, in order', async () => {
    const ended = await run('exit');
    expect(ended.code).toBe(0);
    expect(numbers(ended.stdout)).toEqual(ALL);
  });

  it('an uncaught exception in the turn that logged: every line is written, in order', async () => {
    const ended = await run('crash');
    expect(ended.code).toBe(1);
    expect(ended.stderr).toContain('deliberate crash');
    expect(numbers(ended.stdout)).toEqual(ALL);
  });

  it('the event loop running out (a graceful shutdown): every line is written, and the process ends', async () => {
    const ended = await run('end');
    expect(ended.code).toBe(0);
    expect(numbers(ended.stdout)).toEqual(ALL);
  });

  it('a quiet process: a lone line is written while it runs, not held for more lines to join it', async () => {
    const child = spawn(process.execPath, ['-e', WRITER, 'idle'], {
      cwd: PACKAGE_DIR,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding('utf8').once('data', resolve);
        child.once('exit', (code) => reject(new Error(`writer exited ${code} before writing`)));
      });
      expect(JSON.parse(line)).toMatchObject({ msg: 'one quiet line', service: 'stdout-test' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
