import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

// Log lines are gathered in memory and written off the event loop (libs/logging, pino's asynchronous destination).
// These tests run a real service process, as production does, and check that nothing held is lost when it stops:
// at the end of a graceful shutdown (SIGTERM) and when it crashes. They run the built libraries (npm run build).
const PACKAGE_DIR = join(__dirname, '..');

// A one-route app on createHttpApp and LoggingModule at info, logging to the real stdout. A provider logs from
// its shutdown hook, in the same turn as the process exits: the line a buffer without an exit flush would lose.
const SERVICE = `
require('reflect-metadata');
const { Controller, Get, Injectable, Logger, Module } = require('@nestjs/common');
const { LoggingModule, RequestLogging } = require('@dmrv/logging');
const { createHttpApp, installGracefulShutdown } = require('./dist/index.js');

class HelloController { hello() { return { hello: 'world' }; } }
Controller()(HelloController);
Get('hello')(HelloController.prototype, 'hello', Object.getOwnPropertyDescriptor(HelloController.prototype, 'hello'));

class LastWords { onApplicationShutdown() { new Logger('LastWords').log('closed last'); } }
Injectable()(LastWords);

class AppModule {}
Module({
  imports: [LoggingModule.forRoot({ service: 'log-delivery', level: 'info', pretty: false })],
  controllers: [HelloController],
  providers: [LastWords],
})(AppModule);

(async () => {
  const app = await createHttpApp(AppModule, { trustProxy: false });
  installGracefulShutdown(app, { graceMs: 5000 });
  await app.listen(0, '127.0.0.1');
  process.on('message', (message) => {
    if (message !== 'crash') return;
    const logger = new Logger('Crash');
    const requests = app.get(RequestLogging);
    for (let i = 0; i < 200; i += 1) {
      logger.log('line ' + i);
      requests.completed({ requestId: 'crash-' + i, method: 'GET', url: '/hello', client: '127.0.0.1',
        userAgent: undefined, statusCode: 200, responseTimeMs: 0.1 });
    }
    throw new Error('deliberate crash');
  });
  process.send({ port: app.getHttpServer().address().port });
})();
`;

interface Service {
  child: ChildProcess;
  port: number;
  output: { stdout: string; stderr: string };
  exited: Promise<number | null>;
}

async function startService(): Promise<Service> {
  if (!existsSync(join(PACKAGE_DIR, 'dist', 'index.js'))) {
    throw new Error('libs/http-kit is not built: run `node scripts/pnpm.mjs run build` first');
  }
  const child = spawn(process.execPath, ['-e', SERVICE], {
    cwd: PACKAGE_DIR,
    env: { PATH: process.env.PATH, NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { port: number }) => resolve(message.port));
    void exited.then((code) =>
      reject(new Error(`service exited ${code} before listening:\n${output.stderr}`)),
    );
  });
  return { child, port, output, exited };
}

function lines(stdout: string): Array<Record<string, unknown>> {
  return stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('log lines held in memory are written when the service stops', () => {
  it('SIGTERM: every access line and the lines of the shutdown itself are in stdout, exit code 0', async () => {
    const service = await startService();
    const ids: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const response = await fetch(`http://127.0.0.1:${service.port}/hello`, {
        headers: { 'x-request-id': `term-${i}` },
      });
      expect(response.status).toBe(200);
      await response.arrayBuffer();
      ids.push(`term-${i}`);
    }
    service.child.kill('SIGTERM');

    await expect(service.exited).resolves.toBe(0);
    const written = lines(service.output.stdout);
    const accessIds = written
      .filter((line) => line.msg === 'request completed')
      .map((line) => line.requestId);
    expect(accessIds).toEqual(ids);
    const messages = written.map((line) => line.msg);
    expect(messages).toContain('SIGTERM received: draining in-flight requests');
    expect(messages[messages.length - 1]).toBe('closed last');
  });

  it('an uncaught exception: the lines logged in the turn that crashed are in stdout, exit code 1', async () => {
    const service = await startService();
    service.child.send('crash');

    await expect(service.exited).resolves.toBe(1);
    expect(service.output.stderr).toContain('deliberate crash');
    const written = lines(service.output.stdout);
    expect(written.filter((line) => line.context === 'Crash').map((line) => line.msg)).toEqual(
      Array.from({ length: 200 }, (_, i) => `line ${i}`),
    );
    expect(written.filter((line) => line.msg === 'request completed')).toHaveLength(200);
  });
});
