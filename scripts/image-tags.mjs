#!/usr/bin/env node
// The tags a released image is pushed under (.github/workflows/release.yml), one per line:
//   <version>          always;
//   <major>.<minor>    when no released version of that line is higher (a late patch of an older line never moves
//                      the tag of a newer one);
//   latest             when no released version of the app is higher.
// The released versions are the app's `<app>@<version>` git tags, the one being released among them.
import { execFileSync } from 'node:child_process';
import { pathToFileURL } from 'node:url';

const USAGE =
  "usage: node scripts/image-tags.mjs <image> <app> <version>   (the app's released versions: its git tags)";
const SEMVER = /^(\d+)\.(\d+)\.(\d+)$/;

const parse = (version) => SEMVER.exec(version)?.slice(1).map(Number);
const compare = (a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

export function imageTags(version, released) {
  const own = parse(version);
  if (!own) throw new Error(`version ${version} is not MAJOR.MINOR.PATCH`);
  const others = released.map(parse).filter(Boolean);
  const tags = [version];
  if (!others.some((other) => other[0] === own[0] && other[1] === own[1] && compare(other, own) > 0)) {
    tags.push(`${own[0]}.${own[1]}`);
  }
  if (!others.some((other) => compare(other, own) > 0)) tags.push('latest');
  return tags;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [image, app, version, ...rest] = process.argv.slice(2);
  if (!image || !app || !version || rest.length > 0) {
    process.stderr.write(`${USAGE}\n`);
    process.exit(2);
  }
  try {
    const released = execFileSync('git', ['tag', '--list', `${app}@*`], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((tag) => tag.slice(app.length + 1));
    process.stdout.write(
      imageTags(version, released)
        .map((tag) => `${image}:${tag}\n`)
        .join(''),
    );
  } catch (error) {
    process.stderr.write(`image-tags: ${error.message}\n`);
    process.exit(1);
  }
}
