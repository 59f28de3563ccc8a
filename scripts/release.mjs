#!/usr/bin/env node
// Releases one app: bumps apps/<app>/package.json's version (and that of the packages its `dmrv.releasedWith` names,
// published with it under the same version), moves the app's entries from CHANGELOG.md's `## [Unreleased]` into a
// new section `## [<app>@<version>] - <date>` (grouped Added, Changed, Deprecated, Removed, Fixed, Security), sets the
// production overlay's image tag of the app to the version, commits all of it in one commit and tags it
// `<app>@<version>`. Nothing is pushed. Run it from anywhere inside the repository, on a clean working tree.
//
// An entry belongs to the apps its bold scope names (`- **registry-api**: …`, `- **registry-api, ussd-gateway**: …`):
// an app by its name (also `registry-api loader`), a package released with an app (`@dmrv/registry-client`), a
// workspace library (`http-kit`, `@dmrv/http-kit`, `libs/http-kit`) for every app that ships it, or `All services`.
// An entry of several apps goes into this app's section and stays under [Unreleased] for the others, its scope then
// naming them. Entries that name no app (tests, benchmarks, documents) stay under [Unreleased].
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { workspacePackages } from './workspace-packages.mjs';

const USAGE = `usage: node scripts/release.mjs <app> <patch|minor|major> [--dry-run]
  <app>          a directory under apps/ (e.g. registry-api)
  --dry-run      print the new version, the tag and the changelog section; change nothing`;

class UsageError extends Error {}
class ReleaseError extends Error {}

const git = (root, ...args) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** Keep a Changelog's groups, in its order; an entry under no group is a change. */
const GROUPS = ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'];

export function bump(version, kind) {
  const match = /^(\d+)\.(\d+)\.(\d+)$/.exec(version);
  if (!match) throw new ReleaseError(`version ${version} is not MAJOR.MINOR.PATCH`);
  const [major, minor, patch] = match.slice(1).map(Number);
  if (kind === 'major') return `${major + 1}.0.0`;
  if (kind === 'minor') return `${major}.${minor + 1}.0`;
  return `${major}.${minor}.${patch + 1}`;
}

/** Directories of the workspace packages, by package name. */
function workspaceDirs(root) {
  return new Map(workspacePackages(root).map(({ dir, manifest }) => [manifest.name, dir]));
}

const manifestOf = (root, dir) => JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));

/** The app's directory and those of the workspace packages it runs with (dependencies, transitively). */
function shippedDirs(root, appDir, byName) {
  const seen = new Set();
  const visit = (dir) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    const { dependencies = {}, optionalDependencies = {} } = manifestOf(root, dir);
    for (const [name, range] of Object.entries({ ...dependencies, ...optionalDependencies })) {
      if (String(range).startsWith('workspace:') && byName.has(name)) visit(byName.get(name));
    }
  };
  visit(appDir);
  return seen;
}

/**
 * What a scope word can name, and the apps it stands for: each app by its name, the packages released with it, every
 * workspace package (by name, directory and directory name) for the apps that ship it, and `all services`.
 */
export function scopeIndex(root) {
  const byName = workspaceDirs(root);
  const apps = [...byName.values()]
    .filter((dir) => dir.startsWith('apps/'))
    .map((dir) => basename(dir))
    .sort();
  const index = new Map();
  const add = (word, app) =>
    index.set(word.toLowerCase(), new Set([...(index.get(word.toLowerCase()) ?? []), app]));
  for (const app of apps) {
    add(app, app);
    for (const dir of manifestOf(root, `apps/${app}`).dmrv?.releasedWith ?? []) {
      add(dir, app);
      add(basename(dir), app);
      add(manifestOf(root, dir).name, app);
    }
    for (const dir of shippedDirs(root, `apps/${app}`, byName)) {
      if (dir.startsWith('apps/')) continue;
      add(dir, app);
      add(basename(dir), app);
      add(manifestOf(root, dir).name, app);
    }
  }
  for (const word of ['all services', 'all apps']) for (const app of apps) add(word, app);
  return { apps, index };
}

const SCOPE = /^- \*\*([^*]+)\*\*/;

/** The apps an entry's bold scope names; none for an entry without one or naming no app. */
export function entryApps(entry, { apps, index }) {
  const scope = SCOPE.exec(entry)?.[1];
  if (!scope) return new Set();
  const named = new Set();
  for (const word of scope.split(/\s*(?:,|\/|&|\band\b)\s*/i).map((w) => w.trim().toLowerCase())) {
    // `registry-api loader`: the app's own part.
    const app = apps.find((name) => word === name || word.startsWith(`${name} `));
    for (const each of app ? [app] : (index.get(word) ?? [])) named.add(each);
  }
  return named;
}

/**
 * The [Unreleased] block as groups of lines: headings, entries (a `- ` line and the indented lines under it) and
 * anything else kept as it is.
 */
function parseUnreleased(lines) {
  const items = [];
  let group = null;
  for (const line of lines) {
    const heading = /^### (.+?)\s*$/.exec(line);
    if (heading) {
      group = heading[1];
      items.push({ kind: 'heading', group, lines: [line] });
    } else if (line.startsWith('- ')) {
      items.push({ kind: 'entry', group: group ?? 'Changed', lines: [line] });
    } else if (/^\s+\S/.test(line) && items.at(-1)?.kind === 'entry') {
      items.at(-1).lines.push(line);
    } else {
      items.push({ kind: 'text', group, lines: [line] });
    }
  }
  return items;
}

/** Splits the changelog around `## [Unreleased]`'s block (its heading line excluded). */
function splitChangelog(changelog) {
  const lines = changelog.split('\n');
  const start = lines.findIndex((line) => /^## \[Unreleased\]\s*$/.test(line));
  if (start === -1) throw new ReleaseError('CHANGELOG.md has no "## [Unreleased]" section');
  let end = lines.findIndex((line, at) => at > start && /^## \[/.test(line));
  if (end === -1) end = lines.length;
  return { head: lines.slice(0, start + 1), block: lines.slice(start + 1, end), tail: lines.slice(end) };
}

/**
 * The release of `app`: its section and the changelog with the section inserted and its entries taken out of
 * [Unreleased] (those of other apps too keep their place, their scope naming the other apps).
 */
export function releaseChangelog(changelog, app, heading, scopes) {
  const { head, block, tail } = splitChangelog(changelog);
  const items = parseUnreleased(block);
  const taken = [];
  const kept = [];
  for (const item of items) {
    const apps = item.kind === 'entry' ? entryApps(item.lines[0], scopes) : new Set();
    if (!apps.has(app)) {
      kept.push(item);
      continue;
    }
    taken.push(item);
    const others = [...apps]
      .filter((other) => other !== app)
      .sort((a, b) => scopes.apps.indexOf(a) - scopes.apps.indexOf(b));
    if (others.length === 0) continue;
    const [first, ...rest] = item.lines;
    const scope = SCOPE.exec(first)[1];
    const ownNames = scope.split(/\s*,\s*/).every((word) => scopes.apps.includes(word.trim()));
    const renamed = first.replace(SCOPE, `- **${others.join(', ')}**${ownNames ? '' : ` (${scope})`}`);
    kept.push({ ...item, lines: [renamed, ...rest] });
  }
  if (taken.length === 0) return null;

  const groups = [...new Set([...GROUPS, ...taken.map((item) => item.group)])];
  const section = [heading, ''];
  for (const group of groups) {
    const entries = taken.filter((item) => item.group === group);
    if (entries.length === 0) continue;
    section.push(`### ${group}`, '', ...entries.flatMap((item) => item.lines), '');
  }

  // Headings left without an entry go, and runs of blank lines shrink to one.
  const remaining = kept.filter(
    (item) =>
      item.kind !== 'heading' || kept.some((other) => other.kind === 'entry' && other.group === item.group),
  );
  const unreleased = remaining
    .flatMap((item) => item.lines)
    .filter((line, at, all) => line.trim() !== '' || (at > 0 && all[at - 1].trim() !== ''));
  while (unreleased.length > 0 && unreleased.at(-1).trim() === '') unreleased.pop();
  const body = unreleased.length > 0 && unreleased[0].trim() !== '' ? ['', ...unreleased] : unreleased;
  return {
    section: section.join('\n'),
    count: taken.length,
    changelog: [...head, ...body, '', ...section, ...tail].join('\n'),
  };
}

function release(argv) {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { 'dry-run': { type: 'boolean', default: false } },
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

  const date = new Date().toISOString().slice(0, 10);
  const result = releaseChangelog(
    readFileSync(changelogPath, 'utf8'),
    app,
    `## [${tag}] - ${date}`,
    scopeIndex(root),
  );
  if (!result) {
    throw new ReleaseError(
      `no entry under [Unreleased] in CHANGELOG.md names ${app} or a package it ships with; write what changed for ` +
        `its users there first (CONTRIBUTING.md, "Changelog entries")`,
    );
  }
  process.stdout.write(
    `${app}: ${current} -> ${next}, tag ${tag}, ${result.count} entr${result.count === 1 ? 'y' : 'ies'} from [Unreleased]\n\n${result.section}`,
  );
  if (dryRun) {
    process.stdout.write('\n(dry run: nothing changed)\n');
    return;
  }
  const files = [`${appDir}/package.json`, ...companions.map((dir) => `${dir}/package.json`)];
  for (const manifest of files) {
    const path = join(root, manifest);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/("version":\s*")[^"]*(")/, `$1${next}$2`));
  }
  // The production overlay runs the released image of each app (its newTag is the app's version): the release
  // workflow pushes that image when the tag is pushed.
  const overlay = 'deploy/kubernetes/overlays/production/kustomization.yaml';
  const overlayPath = join(root, overlay);
  const tagged = new RegExp(`(- name: dmrv-${app}\\n(?:[ \\t]+new\\w+: .*\\n)*?[ \\t]+newTag: )\\S+`);
  if (existsSync(overlayPath) && tagged.test(readFileSync(overlayPath, 'utf8'))) {
    writeFileSync(overlayPath, readFileSync(overlayPath, 'utf8').replace(tagged, `$1${next}`));
    files.push(overlay);
  }
  writeFileSync(changelogPath, result.changelog);
  files.push('CHANGELOG.md');
  git(root, 'add', '--', ...files);
  git(root, 'commit', '--quiet', '-m', `${app}: release ${next}`, '--', ...files);
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
