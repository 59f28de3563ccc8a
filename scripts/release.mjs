#!/usr/bin/env node
// Releases one app: bumps apps/<app>/package.json's version (and that of the packages its `dmrv.releasedWith` names,
// published with it under the same version), adds a CHANGELOG.md section from the commits that touched the app or a
// workspace library it ships with since the app's last tag (its whole history for a first release), commits and tags
// `<app>@<version>`. Nothing is pushed. Run it from anywhere inside the repository, on a clean working tree.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const USAGE = `usage: node scripts/release.mjs <app> <patch|minor|major> [--dry-run] [--since <ref>]
  <app>          a directory under apps/ (e.g. registry-api)
  --dry-run      print the new version, the tag and the changelog section; change nothing
  --since <ref>  where the changelog section starts when the app has no <app>@* tag yet (default: the
                 repository's first commit, so the first release lists the app's whole history)`;

class UsageError extends Error {}
class ReleaseError extends Error {}

const git = (root, ...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** Commit subjects filed under Keep a Changelog's headings by their first word after an optional `scope: `. */
const SECTIONS = [
  ['Added', /^(add|adds|added|new|introduce|introduces)\b/i],
  ['Removed', /^(remove|removes|removed|drop|drops|dropped|delete|deletes)\b/i],
  ['Fixed', /^(fix|fixes|fixed)\b/i],
  ['Security', /^(security)\b/i],
];

export function bump(version, kind) {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new ReleaseError(`version ${version} is not MAJOR.MINOR.PATCH`);
  const [major, minor, patch] = match.slice(1).map(Number);
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

export function section(subject) {
  const topic = subject.replace(/^[\w@/.,\s-]+?:\s+/, '');
  return SECTIONS.find(([, pattern]) => pattern.test(subject) || pattern.test(topic))?.[0] ?? 'Changed';
}

/** Directories of the workspace packages, by package name (pnpm-workspace.yaml's `dir/*` and plain entries). */
function workspaceDirs(root) {
  const yaml = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8');
  const block = /^packages:\n((?:\s+-\s+.+\n?)+)/m.exec(yaml)?.[1] ?? '';
  const entries = [...block.matchAll(/-\s+['"]?([^'"\n]+)['"]?/g)].map(([, entry]) => entry.trim());
  const dirs = entries.flatMap((entry) =>
    entry.endsWith('/*') && existsSync(join(root, entry.slice(0, -2)))
      ? readdirSync(join(root, entry.slice(0, -2))).map((child) => `${entry.slice(0, -2)}/${child}`)
      : [entry],
  );
  const byName = new Map();
  for (const dir of dirs) {
    const manifest = join(root, dir, 'package.json');
    if (existsSync(manifest)) byName.set(JSON.parse(readFileSync(manifest, 'utf8')).name, dir);
  }
  return byName;
}

/** The app's directory and those of the workspace packages it runs with (dependencies, transitively). */
function shippedDirs(root, appDir) {
  const byName = workspaceDirs(root);
  const seen = new Set();
  const visit = (dir) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const { dependencies = {}, optionalDependencies = {} } = JSON.parse(
      readFileSync(join(root, dir, 'package.json'), 'utf8'),
    );
    for (const [name, range] of Object.entries({ ...dependencies, ...optionalDependencies })) {
      if (String(range).startsWith('workspace:') && byName.has(name)) visit(byName.get(name));
    }
  };
  visit(appDir);
  return [...seen];
}

export function changelogSection(tag, date, commits) {
  const lines = [`## [${tag}] - ${date}`, ''];
  for (const heading of ['Added', 'Changed', 'Removed', 'Fixed', 'Security']) {
    const entries = commits.filter((commit) => section(commit.subject) === heading);
    if (entries.length === 0) continue;
    lines.push(`### ${heading}`, '', ...entries.map(({ hash, subject }) => `- ${subject} (${hash})`), '');
  }
  return lines.join('\n');
}

/** Puts the section above the newest release, below `## [Unreleased]` and the text that belongs to it. */
export function insertSection(changelog, text) {
  const unreleased = changelog.search(/^## \[Unreleased\]/m);
  const from = unreleased === -1 ? 0 : unreleased + 1;
  const next = changelog.slice(from).search(/^## \[/m);
  if (next === -1) return `${changelog.trimEnd()}\n\n${text}`;
  const at = from + next;
  return `${changelog.slice(0, at)}${text}\n${changelog.slice(at)}`;
}

function release(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'dry-run': { type: 'boolean', default: false }, since: { type: 'string' } },
  });
  const [app, kind] = positionals;
  if (!app || !kind || positionals.length > 2) throw new UsageError('an app and a version step are required');
  if (!['patch', 'minor', 'major'].includes(kind)) throw new UsageError(`unknown version step ${kind}`);
  const root = git(process.cwd(), 'rev-parse', '--show-toplevel');
  const appDir = `apps/${app}`;
  const manifestPath = join(root, appDir, 'package.json');
  if (!/^[a-z0-9-]+$/.test(app) || !existsSync(manifestPath))
    throw new UsageError(`no app ${app} (${appDir}/package.json)`);
  const changelogPath = join(root, 'CHANGELOG.md');
  if (!existsSync(changelogPath)) throw new ReleaseError('CHANGELOG.md is missing');
  const dryRun = values['dry-run'];
  if (!dryRun && git(root, 'status', '--porcelain') !== '') {
    throw new ReleaseError('the working tree has uncommitted changes; commit or stash them first');
  }

  const manifestText = readFileSync(manifestPath, 'utf8');
  const current = JSON.parse(manifestText).version;
  // Packages published with the app under its version (the registry client, generated from the registry's document).
  const companions = JSON.parse(manifestText).dmrv?.releasedWith ?? [];
  const next = bump(current ?? '', kind);
  const tag = `${app}@${next}`;
  if (git(root, 'tag', '--list', tag) !== '') throw new ReleaseError(`tag ${tag} exists already`);
  const previous = values.since ?? git(root, 'tag', '--list', `${app}@*`, '--sort=-v:refname').split('\n')[0];
  const range = previous ? `${previous}..HEAD` : 'HEAD';
  const paths = shippedDirs(root, appDir);
  const log = git(root, 'log', '--no-merges', '--format=%h%x1f%s', range, '--', ...paths);
  const commits =
    log === ''
      ? []
      : log.split('\n').map((line) => ({ hash: line.split('\x1f')[0], subject: line.split('\x1f')[1] }));
  if (commits.length === 0)
    throw new ReleaseError(`no commits touching ${paths.join(', ')} since ${previous || 'the first commit'}`);

  const date = new Date().toISOString().slice(0, 10);
  const text = changelogSection(tag, date, commits);
  process.stdout.write(
    `${app}: ${current} -> ${next}, tag ${tag}, ${commits.length} commit(s) ${previous ? `since ${previous}` : `(first release: no ${app}@* tag)`}\n\n${text}`,
  );
  if (dryRun) {
    process.stdout.write('\n(dry run: nothing changed)\n');
    return;
  }
  const manifests = [`${appDir}/package.json`, ...companions.map((dir) => `${dir}/package.json`)];
  for (const manifest of manifests) {
    const path = join(root, manifest);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/("version":\s*")[^"]*(")/, `$1${next}$2`));
  }
  // The production overlay runs the released image of each app (its newTag is the app's version).
  const overlay = 'deploy/kubernetes/overlays/production/kustomization.yaml';
  const overlayPath = join(root, overlay);
  const tagged = new RegExp(`(- name: dmrv-${app}\\n(?:[ \\t]+new\\w+: .*\\n)*?[ \\t]+newTag: )\\S+`);
  if (existsSync(overlayPath) && tagged.test(readFileSync(overlayPath, 'utf8'))) {
    writeFileSync(overlayPath, readFileSync(overlayPath, 'utf8').replace(tagged, `$1${next}`));
    manifests.push(overlay);
  }
  writeFileSync(changelogPath, insertSection(readFileSync(changelogPath, 'utf8'), text));
  git(root, 'add', '--', ...manifests, 'CHANGELOG.md');
  git(root, 'commit', '--quiet', '-m', `${app}: release ${next}`, '--', ...manifests, 'CHANGELOG.md');
  git(root, 'tag', '-a', tag, '-m', `${app} ${next}`);
  process.stdout.write(`\ncommitted and tagged ${tag}; push with: git push && git push origin ${tag}\n`);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    release(process.argv.slice(2));
  } catch (error) {
    const usage = error instanceof UsageError || error?.code?.startsWith?.('ERR_PARSE_ARGS');
    process.stderr.write(`release: ${error.message}\n${usage ? `\n${USAGE}\n` : ''}`);
    process.exit(usage ? 2 : 1);
  }
}
