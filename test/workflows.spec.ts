import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';

// What the release workflow promises adopters, read from the workflow itself: nothing is published before the tests
// pass, every action is the exact commit reviewed, images carry an SBOM and provenance and are signed by digest, and
// the npm package goes out by trusted publishing. (action-validator checks the schema in `npm run lint`.)

interface Step {
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
  id?: string;
}
interface Job {
  needs?: string | string[];
  permissions?: Record<string, string>;
  services?: Record<string, { image: string; ports?: string[] }>;
  env?: Record<string, string>;
  steps: Step[];
}

const WORKFLOWS = join(REPO_ROOT, '.github', 'workflows');
const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8');
const workflowFiles = readdirSync(WORKFLOWS).filter((name) => /\.ya?ml$/.test(name));
const release = parse(read('.github/workflows/release.yml')) as { jobs: Record<string, Job> };
const needs = (job: Job) => [job.needs ?? []].flat();
const productionNode = /^PRODUCTION_NODE_VERSION=(\S+)$/m.exec(read('.ci/run'))?.[1];
const runs = (job: Job) => job.steps.flatMap((step) => step.run ?? []).join('\n');

describe('GitHub workflows', () => {
  it.each(workflowFiles)(
    '%s pins every action to a full commit SHA, the release it is named in a comment',
    (file) => {
      const uses = readFileSync(join(WORKFLOWS, file), 'utf8')
        .split('\n')
        .filter((line) => /^\s*(-\s+)?uses:/.test(line))
        .map((line) => line.trim().replace(/^-\s+/, ''));
      expect(uses.length).toBeGreaterThan(0);
      expect(
        uses.filter((line) => !/^uses: [\w.-]+\/[\w./-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/.test(line)),
      ).toEqual([]);
    },
  );

  it('uses one commit per action across the workflows', () => {
    const pins = new Map<string, Set<string>>();
    for (const file of workflowFiles) {
      for (const [, action, pin] of readFileSync(join(WORKFLOWS, file), 'utf8').matchAll(
        /uses: ([^@\s]+)@(\S+ # \S+)/g,
      )) {
        pins.set(action!, (pins.get(action!) ?? new Set()).add(pin!));
      }
    }
    expect([...pins].filter(([, versions]) => versions.size > 1)).toEqual([]);
  });
});

describe('release.yml', () => {
  const { tag, test, image, 'npm-packages': client } = release.jobs;

  it('publishes nothing before the test job has passed on the tagged commit', () => {
    const publishing = Object.entries(release.jobs).filter(([name]) => name !== 'tag' && name !== 'test');
    expect(publishing.map(([name]) => name).sort()).toEqual(['image', 'npm-packages']);
    for (const [name, job] of publishing)
      expect({ name, needs: needs(job) }).toEqual({ name, needs: ['tag', 'test'] });
    // Only the publishing jobs may write packages or mint an OIDC token.
    expect(tag!.permissions).toBeUndefined();
    expect(test!.permissions).toBeUndefined();
  });

  it('tests as CI does: npm test, the alert rules and the audit, on the production Node release', () => {
    expect(runs(test!).split('\n')).toEqual(['npm test', 'npm run test:alerts', 'npm run audit']);
    const ciRun = read('.ci/run');
    expect(ciRun).toMatch(/^\s*npm test\b/m);
    expect(ciRun).toMatch(/run test:alerts$/m);
    expect(ciRun).toMatch(/run audit 2>&1/m);
    const setupNode = test!.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    expect(setupNode?.with).toEqual({ 'node-version': productionNode, 'package-manager-cache': false });
    // PostgreSQL (trust, like the machines the README names) and Redis on the addresses the tests default to.
    expect(test!.services).toEqual({
      postgres: expect.objectContaining({
        image: 'postgres:17-alpine',
        env: { POSTGRES_HOST_AUTH_METHOD: 'trust' },
        ports: ['127.0.0.1:5432:5432'],
      }) as unknown,
      redis: expect.objectContaining({ image: 'redis:7-alpine', ports: ['127.0.0.1:6379:6379'] }) as unknown,
    });
  });

  it('pushes every image with an SBOM and full provenance under the tags scripts/image-tags.mjs computes', () => {
    expect(runs(tag!)).toContain('node scripts/image-tags.mjs "$image" "$app" "$version"');
    const build = image!.steps.find((step) => step.uses?.startsWith('docker/build-push-action@'))!;
    expect(build.with).toEqual(
      expect.objectContaining({
        push: true,
        provenance: 'mode=max',
        sbom: true,
        tags: '${{ needs.tag.outputs.image-tags }}',
      }),
    );
  });

  it('builds each image with the release and commit that dmrv_build_info reports', () => {
    const build = image!.steps.find((step) => step.uses?.startsWith('docker/build-push-action@'))!;
    const buildArgs = String(build.with?.['build-args'] ?? '')
      .trim()
      .split('\n');
    expect(buildArgs).toEqual([
      'BUILD_VERSION=${{ needs.tag.outputs.version }}',
      'BUILD_COMMIT=${{ github.sha }}',
    ]);
    for (const app of ['registry-api', 'ussd-gateway', 'protocol-gateway']) {
      expect(read(`apps/${app}/Dockerfile`)).toMatch(/^ARG BUILD_VERSION=""\nARG BUILD_COMMIT=""$/m);
    }
  });

  it('signs the pushed digest keyless with cosign and verifies it with the identity the docs give operators', () => {
    expect(image!.permissions).toEqual({ contents: 'read', packages: 'write', 'id-token': 'write' });
    const build = image!.steps.find((step) => step.uses?.startsWith('docker/build-push-action@'))!;
    const sign = image!.steps.find((step) => step.run?.startsWith('cosign sign'))!;
    expect(sign).toEqual(
      expect.objectContaining({
        env: { DIGEST: `\${{ steps.${build.id}.outputs.digest }}` },
        run: 'cosign sign --yes "$IMAGE@$DIGEST"',
      }),
    );
    expect(
      image!.steps.findIndex((step) => step.uses?.startsWith('sigstore/cosign-installer@')),
    ).toBeGreaterThan(-1);
    const verify = image!.steps.find((step) => step.run?.includes('cosign verify'))!;
    expect(verify.env?.IDENTITY).toBe(
      '${{ github.server_url }}/${{ github.repository }}/.github/workflows/release.yml@${{ github.ref }}',
    );
    const docs = read('docs/deployment.md');
    expect(docs).toContain('--certificate-oidc-issuer https://token.actions.githubusercontent.com');
    expect(docs).toContain('/.github/workflows/release.yml@refs/tags/registry-api@0.2.0');
  });

  it('publishes the clients released with an app by trusted publishing with provenance, NPM_TOKEN only as the fallback', () => {
    expect(client!.permissions).toEqual({ contents: 'read', 'id-token': 'write' });
    const setupNode = client!.steps.find((step) => step.uses?.startsWith('actions/setup-node@'));
    // No registry-url: setup-node would configure a token (a placeholder without one), which npm prefers to OIDC.
    expect(setupNode?.with).toEqual({ 'node-version': productionNode, 'package-manager-cache': false });
    const publish = client!.steps.find((step) => step.run?.includes('npm publish'))!;
    expect(publish.env).toEqual({ NPM_TOKEN: '${{ secrets.NPM_TOKEN }}' });
    expect(publish.run).toContain('npm publish packed/released/*.tgz --provenance --access public');
    expect(publish.run).toContain('npm publish packed/kit/*.tgz --provenance --access public');
    expect(publish.run).toContain('if [ -n "$NPM_TOKEN" ]; then');
    expect(read('CONTRIBUTING.md')).toContain('### Publishing to npm');
  });
});
