import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';

// renovate.json: the groups the upkeep relies on, and the regular expressions that find the Node release where no
// Renovate manager looks, checked against the files as they are (a renamed variable would silently stop updates).

interface Rule {
  groupName?: string;
  matchManagers?: string[];
  matchDepTypes?: string[];
  matchDepNames?: string[];
  matchDatasources?: string[];
}
interface CustomManager {
  managerFilePatterns: string[];
  matchStrings: string[];
}
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const config = JSON.parse(read('renovate.json')) as {
  extends: string[];
  packageRules: Rule[];
  customManagers: CustomManager[];
};
const group = (name: string) => config.packageRules.find((rule) => rule.groupName === name);

describe('renovate.json', () => {
  it('groups the pnpm catalog, the Node base image with its other mentions, and the actions (pinned to SHAs)', () => {
    expect(group('pnpm catalog')).toMatchObject({
      matchManagers: ['npm'],
      matchDepTypes: ['pnpm.catalog.default'],
    });
    expect(group('Node.js base image')).toMatchObject({
      matchDepNames: ['node'],
      matchDatasources: ['docker', 'github-releases'],
    });
    expect(group('GitHub Actions')).toMatchObject({ matchManagers: ['github-actions'] });
    expect(config.extends).toContain('helpers:pinGitHubActionDigestsToSemver');
  });

  it('finds the production Node release in every file its custom manager names', () => {
    const production = /^PRODUCTION_NODE_VERSION=(\S+)$/m.exec(read('.ci/run'))![1];
    const [manager] = config.customManagers;
    const files = manager!.managerFilePatterns.map((pattern) =>
      pattern.slice(1, -1).replace(/^\^/, '').replace(/\$$/, '').replace(/\\\./g, '.'),
    );
    expect(files).toEqual(['.ci/run', 'scripts/containers/setup.sh']);
    for (const file of files) {
      const found = manager!.matchStrings.flatMap(
        (pattern) => new RegExp(pattern).exec(read(file))?.groups?.currentValue ?? [],
      );
      expect({ file, found }).toEqual({ file, found: [production] });
    }
  });
});
