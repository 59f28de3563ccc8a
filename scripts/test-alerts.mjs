#!/usr/bin/env node
// Checks and unit-tests the Prometheus alert rules with promtool (Debian/Ubuntu: apt-get install prometheus):
// the rules live in a PrometheusRule manifest (deploy/kubernetes/monitoring/prometheus-rules.yaml), which promtool
// cannot read, so its spec.groups are written as a plain rule file beside a copy of alerts.test.yaml. Also fails
// when an alert has no test case that fires it.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const monitoring = join(dirname(fileURLToPath(import.meta.url)), '..', 'deploy', 'kubernetes', 'monitoring');
const rule = parse(readFileSync(join(monitoring, 'prometheus-rules.yaml'), 'utf8'));
const tests = parse(readFileSync(join(monitoring, 'alerts.test.yaml'), 'utf8'));

const alerts = rule.spec.groups.flatMap((group) => group.rules.map((r) => r.alert).filter(Boolean));
const fired = new Set(
  tests.tests.flatMap((test) =>
    (test.alert_rule_test ?? []).filter((c) => (c.exp_alerts ?? []).length > 0).map((c) => c.alertname),
  ),
);
const untested = alerts.filter((alert) => !fired.has(alert));
if (untested.length > 0) {
  process.stderr.write(`alerts.test.yaml has no case that fires ${untested.join(', ')}\n`);
  process.exit(1);
}

const scratch = mkdtempSync(join(tmpdir(), 'dmrv-alerts-'));
try {
  writeFileSync(join(scratch, tests.rule_files[0]), stringify({ groups: rule.spec.groups }));
  copyFileSync(join(monitoring, 'alerts.test.yaml'), join(scratch, 'alerts.test.yaml'));
  const promtool = (...args) => execFileSync('promtool', args, { cwd: scratch, stdio: 'inherit' });
  promtool('check', 'rules', tests.rule_files[0]);
  promtool('test', 'rules', 'alerts.test.yaml');
  process.stdout.write(`${alerts.length} alerts, each fired by a test case\n`);
} catch (error) {
  if (error.code === 'ENOENT') process.stderr.write('promtool is missing: apt-get install prometheus\n');
  process.exitCode = 1;
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
