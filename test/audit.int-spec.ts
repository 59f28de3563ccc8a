import { spawn } from 'node:child_process';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { REPO_ROOT, STOPPED_PORT } from '@dmrv/testing';

// scripts/audit.mjs, CI's dependency audit, against a registry of our own that serves the audit endpoint pnpm calls
// (the real advisory database may be out of reach, as it is on the CI machines): it fails on a high or critical
// advisory, passes on milder ones, and says plainly that nothing was checked when the database does not answer.

jest.setTimeout(120_000);

const SCRIPT = join(REPO_ROOT, 'scripts', 'audit.mjs');

function advisory(id: number, severity: string, module: string, paths: string[]) {
  return {
    id,
    module_name: module,
    severity,
    title: `${module} does a bad thing`,
    url: `https://github.com/advisories/GHSA-test-${id}`,
    vulnerable_versions: '<99.0.0',
    patched_versions: '>=99.0.0',
    github_advisory_id: `GHSA-test-${id}`,
    findings: [{ version: '1.0.0', paths }],
    cves: [],
    cwe: [],
    recommendation: 'Upgrade',
    overview: '',
    references: '',
    access: 'public',
    created: '2026-01-01T00:00:00.000Z',
    updated: '2026-01-01T00:00:00.000Z',
    deleted: null,
    metadata: null,
    found_by: null,
    reported_by: null,
  };
}

function report(advisories: ReturnType<typeof advisory>[]) {
  const vulnerabilities = { info: 0, low: 0, moderate: 0, high: 0, critical: 0 } as Record<string, number>;
  for (const { severity } of advisories) vulnerabilities[severity]! += 1;
  return {
    actions: [],
    advisories: Object.fromEntries(advisories.map((entry) => [String(entry.id), entry])),
    muted: [],
    metadata: {
      vulnerabilities,
      dependencies: 42,
      devDependencies: 0,
      optionalDependencies: 0,
      totalDependencies: 42,
    },
  };
}

describe('scripts/audit.mjs', () => {
  let server: Server;
  let answer: { status: number; body: unknown };
  const paths: string[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      paths.push(`${request.method} ${request.url}`);
      request.resume();
      request.on('end', () => {
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(answer.status === 200 ? JSON.stringify(answer.body) : '');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const audit = (registry: string) =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, [SCRIPT, '--registry', registry], { cwd: REPO_ROOT });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
  const ours = () => `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;

  it('fails on a high or critical advisory in a production dependency, naming each one', async () => {
    answer = {
      status: 200,
      body: report([
        advisory(1, 'critical', 'left-pad', ['apps__registry-api>left-pad']),
        advisory(2, 'high', 'fastify', [
          'apps__registry-api>fastify',
          'apps__ussd-gateway>fastify',
          'a>fastify',
          'b>fastify',
        ]),
        advisory(3, 'moderate', 'pino', ['libs__logging>pino']),
      ]),
    };
    expect(await audit(ours())).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        'audit: 2 high or critical advisories in the production dependencies:',
        '  critical left-pad <99.0.0: left-pad does a bad thing (https://github.com/advisories/GHSA-test-1)',
        '    patched: >=99.0.0; via apps__registry-api>left-pad',
        '  high fastify <99.0.0: fastify does a bad thing (https://github.com/advisories/GHSA-test-2)',
        '    patched: >=99.0.0; via apps__registry-api>fastify, apps__ussd-gateway>fastify, a>fastify, and 1 more',
        '',
      ].join('\n'),
    });
    // The endpoint pnpm audits against (the registry's bulk of the lockfile's production tree).
    expect(paths.at(-1)).toBe('POST /-/npm/v1/security/audits/quick');
  });

  it('passes when only milder advisories are known, counting them', async () => {
    answer = { status: 200, body: report([advisory(3, 'moderate', 'pino', ['libs__logging>pino'])]) };
    expect(await audit(ours())).toEqual({
      code: 0,
      stdout:
        'audit: no known high or critical advisory in the production dependencies (42 checked; 1 moderate)\n',
      stderr: '',
    });
  });

  it('says plainly that nothing was checked when the registry does not serve the advisory database', async () => {
    answer = { status: 405, body: null };
    const result = await audit(ours());
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')[0]).toBe(
      'audit: NOT CHECKED: the advisory database could not be reached from here, so no dependency was checked',
    );
    expect(result.stdout).toContain('responded with 405');
  });

  it('says the same when nothing answers at all', async () => {
    const result = await audit(`http://127.0.0.1:${STOPPED_PORT}/`);
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n')[0]).toBe(
      'audit: NOT CHECKED: the advisory database could not be reached from here, so no dependency was checked',
    );
  });
});
