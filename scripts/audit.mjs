#!/usr/bin/env node
// The dependency audit CI runs (.ci/run, and the release workflow's test job): `pnpm audit` of the production
// dependencies of every workspace package against the npm registry's advisory database.
//   exit 1  a known advisory of high or critical severity affects a production dependency (each is listed);
//   exit 0  none does, or the advisory database could not be reached: then it says so plainly, and that nothing was
//           checked, rather than failing a build that nothing is known to be wrong with.
// An advisory judged not to apply is muted in pnpm-workspace.yaml (`auditConfig.ignoreGhsas`, with a comment why).
//   node scripts/audit.mjs [--registry <url>]   (another registry or mirror that serves the audit endpoint)
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SEVERE = ['critical', 'high'];
// pnpm's answer when the endpoint answered with an error status, and the errors of a network that goes nowhere.
const UNREACHABLE =
  /ERR_PNPM_AUDIT_BAD_RESPONSE|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|ENETUNREACH|EHOSTUNREACH|socket hang up|fetch failed/;

const { values } = parseArgs({ options: { registry: { type: 'string' } } });
// One retry after 2 s: a database that is not there should say so in seconds, not after pnpm's minute of back-off.
const args = [
  'scripts/pnpm.mjs',
  'audit',
  '--prod',
  '--json',
  '--config.fetch-retries=1',
  '--config.fetch-retry-mintimeout=2000',
  ...(values.registry ? ['--registry', values.registry] : []),
];
const run = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });

let report;
try {
  report = JSON.parse(run.stdout);
} catch {
  report = undefined;
}
const error =
  report?.error ?? (report?.metadata ? undefined : { message: `${run.stdout}${run.stderr}`.trim() });

if (error) {
  const text = `${error.code ?? ''} ${error.message ?? ''}`;
  if (UNREACHABLE.test(text)) {
    process.stdout.write(
      `audit: NOT CHECKED: the advisory database could not be reached from here, so no dependency was checked\n` +
        `  (${text.trim()})\n`,
    );
    process.exit(0);
  }
  process.stderr.write(`audit: pnpm audit failed: ${text.trim() || `exit code ${run.status}`}\n`);
  process.exit(1);
}

const counts = report.metadata.vulnerabilities ?? {};
const severe = Object.values(report.advisories ?? {}).filter((advisory) =>
  SEVERE.includes(advisory.severity),
);
const summary = Object.entries(counts)
  .filter(([, count]) => count > 0)
  .map(([severity, count]) => `${count} ${severity}`)
  .join(', ');
if (severe.length === 0) {
  process.stdout.write(
    `audit: no known high or critical advisory in the production dependencies (${report.metadata.totalDependencies ?? '?'} checked${summary ? `; ${summary}` : ''})\n`,
  );
  process.exit(0);
}
process.stderr.write(
  `audit: ${severe.length} high or critical advisor${severe.length === 1 ? 'y' : 'ies'} in the production dependencies:\n`,
);
for (const advisory of severe) {
  const paths = (advisory.findings ?? []).flatMap((finding) => finding.paths ?? []);
  process.stderr.write(
    `  ${advisory.severity} ${advisory.module_name} ${advisory.vulnerable_versions}: ${advisory.title} (${advisory.url})\n` +
      `    patched: ${advisory.patched_versions}; via ${paths.slice(0, 3).join(', ')}${paths.length > 3 ? `, and ${paths.length - 3} more` : ''}\n`,
  );
}
process.exit(1);
