import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { readManifest, workspacePackages } from './workspace';

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');

describe('licence, versions and changelog', () => {
  it('LICENSE is the unmodified Apache License 2.0 text (apache.org/licenses/LICENSE-2.0.txt)', () => {
    const license = read('LICENSE');
    // The digest of the text as the ASF publishes it; a copy with added or altered terms is not Apache-2.0.
    expect(createHash('md5').update(license).digest('hex')).toBe('3b83ef96387f14655fc854ddc3c6bd57');
    expect(license).toContain('Version 2.0, January 2004');
    expect(license).toMatch(
      /9\. Accepting Warranty or Additional Liability\.[\s\S]+END OF TERMS AND CONDITIONS/,
    );
  });

  it('declares Apache-2.0 (SPDX) in the root and every workspace manifest', () => {
    const manifests = [
      readManifest('.'),
      ...[...workspacePackages().values()].map(({ manifest }) => manifest),
    ];
    expect(manifests.length).toBeGreaterThan(10);
    for (const { name, license } of manifests)
      expect({ name, license }).toEqual({ name, license: 'Apache-2.0' });
  });

  it('gives every app a semantic version that the changelog records', () => {
    const changelog = read('CHANGELOG.md');
    expect(changelog).toContain('[Keep a Changelog](https://keepachangelog.com/en/1.1.0/)');
    expect(changelog).toMatch(/^## \[Unreleased\]$/m);
    const apps = [...workspacePackages().values()].filter(({ dir }) => dir.startsWith('apps/'));
    expect(apps.map(({ dir }) => dir).sort()).toEqual([
      'apps/protocol-gateway',
      'apps/registry-api',
      'apps/ussd-gateway',
    ]);
    for (const { dir, manifest } of apps) {
      const app = dir.slice('apps/'.length);
      expect({ app, version: manifest.version }).toEqual({
        app,
        version: expect.stringMatching(/^\d+\.\d+\.\d+$/) as string,
      });
      const version = manifest.version ?? '';
      const recorded =
        version === '0.1.0'
          ? /^## \[0\.1\.0\] - \d{4}-\d{2}-\d{2}$/m
          : new RegExp(`^## \\[${app}@${version.replace(/\./g, '\\.')}\\] - `, 'm');
      expect({ app, recorded: recorded.test(changelog) }).toEqual({ app, recorded: true });
    }
  });
});
