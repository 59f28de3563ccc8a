import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';

// The image names a release is published under and the ones every way of running it pulls: one registry and one
// organisation, documented once (docs/deployment.md, "Image names"), and no placeholder organisation left to copy.

const APPS = ['registry-api', 'ussd-gateway', 'protocol-gateway'];
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const version = (app: string) =>
  (JSON.parse(read(`apps/${app}/package.json`)) as { version: string }).version;

/** The defaults of the documented settings table: `| registry | \`ghcr.io\` | …`. */
function documentedDefault(setting: string): string | undefined {
  const chapter = read('docs/deployment.md').split('\n## Image names\n')[1]?.split('\n## ')[0] ?? '';
  return new RegExp(`^\\| ${setting} \\| \`([^\`]+)\` \\|`, 'm').exec(chapter)?.[1];
}

function filesUnder(dir: string): string[] {
  return readdirSync(join(REPO_ROOT, dir)).flatMap((entry) => {
    const path = join(dir, entry);
    if (entry === 'secrets') return [];
    return statSync(join(REPO_ROOT, path)).isDirectory() ? filesUnder(path) : [path];
  });
}

describe('image names', () => {
  const registry = documentedDefault('registry');
  const org = documentedDefault('organisation');

  it('documents one default registry and organisation, and they are real names', () => {
    expect({ registry, org }).toEqual({
      registry: 'ghcr.io',
      org: expect.stringMatching(/^[a-z0-9][a-z0-9-]+$/) as string,
    });
  });

  it('runs the released images in the production overlay: <registry>/<organisation>/dmrv-<app>:<its version>', () => {
    const kustomization = parse(read('deploy/kubernetes/overlays/production/kustomization.yaml')) as {
      images: Array<{ name: string; newName: string; newTag: string }>;
    };
    expect(kustomization.images).toEqual(
      APPS.map((app) => ({
        name: `dmrv-${app}`,
        newName: `${registry}/${org}/dmrv-${app}`,
        newTag: version(app),
      })),
    );
  });

  it('tags and pulls the same names in docker-compose.yml, each part a setting with the documented default', () => {
    const compose = parse(read('docker-compose.yml')) as { services: Record<string, { image?: string }> };
    const ours = Object.entries(compose.services).filter(([, service]) => service.image?.includes('dmrv-'));
    expect(ours.map(([name]) => name).sort()).toEqual(
      [
        'protocol-gateway',
        'registry-api',
        'registry-cli',
        'registry-migrate',
        'ussd-gateway',
        'ussd-migrate',
      ].sort(),
    );
    for (const [name, service] of ours) {
      const app = /dmrv-([a-z-]+):/.exec(service.image!)![1];
      expect({ name, image: service.image }).toEqual({
        name,
        image: `\${IMAGE_REGISTRY:-${registry}}/\${IMAGE_ORG:-${org}}/dmrv-${app}:\${IMAGE_TAG:-local}`,
      });
      expect(APPS).toContain(app);
    }
  });

  it('publishes under those names from the release workflow, multi-arch, from the production Dockerfiles', () => {
    const workflow = parse(read('.github/workflows/release.yml')) as {
      on: { push: { tags: string[] } };
      env: Record<string, string>;
      jobs: Record<string, { steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> }>;
    };
    expect(workflow.on.push.tags).toEqual(APPS.map((app) => `${app}@*`));
    expect(workflow.env).toEqual({
      IMAGE_REGISTRY: `\${{ vars.IMAGE_REGISTRY || '${registry}' }}`,
      IMAGE_ORG: `\${{ vars.IMAGE_ORG || '${org}' }}`,
    });
    // The image the tags (scripts/image-tags.mjs) are made for.
    const parseTag = workflow.jobs.tag!.steps.find((step) => step.run?.includes('image-tags.mjs'))!;
    expect(parseTag.run).toContain('image="$IMAGE_REGISTRY/$IMAGE_ORG/dmrv-$app"');
    const build = workflow.jobs.image!.steps.find((step) =>
      step.uses?.startsWith('docker/build-push-action@'),
    )!;
    expect(build.with).toEqual(
      expect.objectContaining({
        file: 'apps/${{ needs.tag.outputs.app }}/Dockerfile',
        platforms: 'linux/amd64,linux/arm64',
        push: true,
        tags: '${{ needs.tag.outputs.image-tags }}',
      }),
    );
    const actions = Object.values(workflow.jobs).flatMap((job) =>
      job.steps.flatMap((step) => step.uses ?? []),
    );
    expect(actions).toEqual(expect.arrayContaining([expect.stringMatching(/^docker\/setup-qemu-action@/)]));
  });

  it('leaves no placeholder organisation in the manifests, compose, the workflow or the deployment guide', () => {
    const files = [
      ...filesUnder('deploy'),
      'docker-compose.yml',
      '.github/workflows/release.yml',
      'docs/deployment.md',
      'libs/registry-client/package.json',
      'libs/chain-client/package.json',
      'libs/http-client-kit/package.json',
    ];
    const placeholders = /your-org|<org>|my-org|example-org|changeme/i;
    expect(
      files
        .filter((file) => placeholders.test(read(file)))
        .map((file) => relative(REPO_ROOT, join(REPO_ROOT, file))),
    ).toEqual([]);
  });
});
