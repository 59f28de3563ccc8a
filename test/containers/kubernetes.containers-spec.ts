import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { entityDid } from '../../tools/local-chain-node/src/seed';
import {
  containersOf,
  effectiveEnv,
  K8sObject,
  LabelSelector,
  Overlay,
  Probe,
  renderOverlays,
  Workload,
} from '../kubernetes-manifests';
import { buildImage, composeBuilds, STAND_INS, TIER_LABEL } from './images';
import { PlayedPod, play, playable, probe, selectedBy } from './kube-play';
import { inspect, mainProcess, podman, podmanOk, removeLabelled, until } from './podman';

// The dev overlay's pod specs run under `podman kube play`: the Deployments (and the migration Jobs' pod templates)
// with their ConfigMaps and Secrets, as rendered by `kubectl kustomize`. kube-play.ts lists what podman cannot run
// and what stands in for it; docs/deployment.md, "What podman kube play runs".

const log = (line: string) => process.stdout.write(`[kube play] ${line}\n`);
const NETWORK = `dmrv-kp-${process.pid}`;
const SERVERS = ['registry-api', 'ussd-gateway', 'protocol-gateway'] as const;
const DEPENDENCIES = ['postgres', 'redis', 'local-chain-node'] as const;
const content = JSON.parse(
  readFileSync(join(REPO_ROOT, 'apps/ussd-gateway/content/en.json'), 'utf8'),
) as Record<string, string>;

function workload(overlay: Overlay, kind: string, name: string): Workload {
  const found = overlay.workloads.find(({ object }) => object.kind === kind && object.metadata.name === name);
  if (!found) throw new Error(`the dev overlay has no ${kind}/${name}`);
  return found;
}

describe('the dev overlay under podman kube play', () => {
  let overlay: Overlay;
  let scratch: string;
  const played = new Map<string, PlayedPod>();
  const hosts = new Map<string, string>();
  const probed: string[] = [];
  let chainImage: string;

  /** Every Service of the overlay whose selector picks a played pod, by name → that pod's address. */
  function resolveServices(): void {
    for (const service of overlay.objects.filter((object) => object.kind === 'Service')) {
      const selector = (service.spec as { selector: Record<string, string> }).selector;
      const [pod] = selectedBy(selector, [...played.values()]);
      if (pod) hosts.set(service.metadata.name, pod.ip);
    }
  }

  /** The overlay's image name of each of our images → the image this run built (compose's name for it). */
  const builtImages: Record<string, string> = {};

  async function start(target: Workload): Promise<PlayedPod> {
    resolveServices();
    const adapted = playable(overlay, target, {
      dir: scratch,
      prefix: NETWORK,
      label: { [TIER_LABEL]: NETWORK },
      hosts,
      images: { ...STAND_INS, ...builtImages },
    });
    const file = join(scratch, `${target.object.metadata.name}.yaml`);
    const pod = await play(adapted, file, NETWORK, `${TIER_LABEL}=${NETWORK}`, target);
    played.set(target.ref, pod);
    log(`played ${target.ref} as pod ${pod.pod} (${pod.ip})`);
    return pod;
  }

  /** Every probe of every container of a pod succeeds, each performed as the kubelet would (bounded by a deadline). */
  async function awaitProbes(pod: PlayedPod): Promise<void> {
    for (const container of pod.workload.pod.containers) {
      const probes = (['startupProbe', 'livenessProbe', 'readinessProbe'] as const)
        .map((kind) => [kind, container[kind]] as const)
        .filter((entry): entry is readonly [(typeof entry)[0], Probe] => entry[1] !== undefined);
      expect({ container: container.name, probes: probes.length }).not.toEqual({
        container: container.name,
        probes: 0,
      });
      for (const [kind, spec] of probes) {
        await until(
          `${pod.workload.ref} ${container.name} ${kind}`,
          async () =>
            (await probe(pod, container, spec, { network: NETWORK, grpcImage: chainImage }))
              ? true
              : undefined,
          { timeoutMs: 180_000, intervalMs: 1_000 },
        );
        const target = spec.httpGet
          ? `GET ${spec.httpGet.path} on ${String(spec.httpGet.port)}`
          : spec.grpc
            ? `gRPC health on ${spec.grpc.port}`
            : spec.exec
              ? `exec ${spec.exec.command[0]}`
              : `tcp ${String(spec.tcpSocket?.port)}`;
        probed.push(`${pod.workload.ref}/${container.name} ${kind}: ${target}`);
      }
    }
  }

  beforeAll(async () => {
    await removeLabelled(TIER_LABEL);
    // Our images from the production Dockerfiles (a cached build is seconds), run under the names the overlay gives
    // them (dmrv/<app>:local, the tags docs/deployment.md builds): the pods run what was just built, never an image
    // an earlier build left under the overlay's name.
    for (const build of composeBuilds()) {
      await buildImage(build, log);
      builtImages[`dmrv/${basename(dirname(build.dockerfile))}:local`] = build.image;
    }
    chainImage = composeBuilds().find(({ service }) => service === 'local-chain-node')!.image;
    overlay = renderOverlays().get('dev')!;
    scratch = mkdtempSync(join(tmpdir(), 'dmrv-kube-play-'));
    // The ConfigMap the walk-through creates with kubectl from deploy/postgres/10-databases.sh.
    const init: K8sObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'postgres-init' },
      data: { '10-databases.sh': readFileSync(join(REPO_ROOT, 'deploy/postgres/10-databases.sh'), 'utf8') },
    };
    overlay = { ...overlay, objects: [...overlay.objects, init] };
    await podmanOk(['network', 'create', '--label', `${TIER_LABEL}=${NETWORK}`, NETWORK]);
    for (const name of DEPENDENCIES) await awaitProbes(await start(workload(overlay, 'Deployment', name)));
    // Migrations first: Jobs, and the servers' init containers (podman 4.3.1 removes a kube play init container while
    // it still runs, so they run as a pod of their own, with the server's volumes, env and securityContext, before
    // the server's pod starts without them, as the kubelet runs them first). Each must exit 0.
    const servers = SERVERS.map((name) => workload(overlay, 'Deployment', name));
    const initRuns: Workload[] = servers
      .filter(({ pod }) => (pod.initContainers ?? []).length > 0)
      .map((server) => ({
        ...server,
        ref: `Job/${server.object.metadata.name}-init`,
        // Labels no Service selects: the Services stay on the servers' pods.
        labels: { 'dmrv-init-of': server.object.metadata.name },
        object: {
          ...server.object,
          kind: 'Job',
          metadata: { ...server.object.metadata, name: `${server.object.metadata.name}-init` },
        },
        pod: {
          ...server.pod,
          containers: server.pod.initContainers!,
          initContainers: [],
          restartPolicy: 'Never',
        },
      }));
    for (const job of [...overlay.workloads.filter(({ object }) => object.kind === 'Job'), ...initRuns]) {
      const pod = await start(job);
      for (const container of containersOf(job.pod)) {
        const code = (
          await podmanOk(['wait', pod.containers.get(container.name)!], { timeoutMs: 300_000 })
        ).trim();
        const output = await podman(['logs', pod.containers.get(container.name)!]);
        expect({ job: job.ref, code, log: code === '0' ? '' : output.stdout + output.stderr }).toEqual({
          job: job.ref,
          code: '0',
          log: '',
        });
      }
    }
    for (const server of servers)
      await awaitProbes(await start({ ...server, pod: { ...server.pod, initContainers: [] } }));
    resolveServices();
    log(`every probe passed:\n  ${probed.join('\n  ')}`);
  }, 30 * 60_000);

  afterAll(async () => {
    await removeLabelled(TIER_LABEL);
    await podman(['network', 'rm', '--force', NETWORK]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }, 120_000);

  it('runs every Deployment of the overlay, each pod ready by all of its probes', () => {
    const deployments = overlay.workloads
      .filter(({ object }) => object.kind === 'Deployment')
      .map(({ ref }) => ref);
    expect([...played.keys()].filter((ref) => ref.startsWith('Deployment/')).sort()).toEqual(
      deployments.sort(),
    );
    for (const ref of deployments) expect(probed.some((line) => line.startsWith(`${ref}/`))).toBe(true);
  });

  it('gives every Service a pod its selector picks', () => {
    const services = overlay.objects
      .filter((object) => object.kind === 'Service')
      .map(({ metadata }) => metadata.name);
    expect([...hosts.keys()].sort()).toEqual(services.sort());
  });

  it('runs each container as its securityContext says: uid, no capabilities, no privilege escalation, read-only root', async () => {
    for (const pod of played.values()) {
      if (pod.workload.object.kind === 'Job') continue;
      const podContext = pod.workload.pod.securityContext ?? {};
      for (const container of pod.workload.pod.containers) {
        const name = pod.containers.get(container.name)!;
        const context = container.securityContext ?? {};
        const uid = context.runAsUser ?? podContext.runAsUser;
        expect({ container: name, ...(await mainProcess(name)) }).toEqual({
          container: name,
          uid,
          capEff: 0n,
        });
        const status = await podmanOk(['exec', name, 'cat', '/proc/1/status']);
        expect({ container: name, noNewPrivs: /^NoNewPrivs:\s+1$/m.test(status) }).toEqual({
          container: name,
          noNewPrivs: context.allowPrivilegeEscalation === false,
        });
        expect({ container: name, readOnly: (await inspect(name)).HostConfig.ReadonlyRootfs }).toEqual({
          container: name,
          readOnly: context.readOnlyRootFilesystem === true,
        });
        // Writable only where an emptyDir is mounted.
        for (const mount of container.volumeMounts ?? []) {
          const volume = pod.workload.pod.volumes?.find(({ name: volumeName }) => volumeName === mount.name);
          if (!volume?.emptyDir) continue;
          const write = await podman([
            'exec',
            name,
            'sh',
            '-c',
            `: > '${mount.mountPath}/.probe' && rm '${mount.mountPath}/.probe'`,
          ]);
          expect({ container: name, path: mount.mountPath, code: write.code }).toEqual({
            container: name,
            path: mount.mountPath,
            code: 0,
          });
        }
        const root = await podman(['exec', name, 'sh', '-c', ': > /probe']);
        expect({ container: name, rootWritable: root.code === 0 }).toEqual({
          container: name,
          rootWritable: false,
        });
      }
    }
  });

  it('starts the servers with the ConfigMap settings and the Secret files their env names', async () => {
    for (const app of SERVERS) {
      const pod = played.get(`Deployment/${app}`)!;
      const container = pod.workload.pod.containers[0]!;
      const name = pod.containers.get(container.name)!;
      const environ = (await podmanOk(['exec', name, 'cat', '/proc/1/environ'])).split('\0');
      for (const [variable, value] of effectiveEnv(overlay, container)) {
        expect({ app, variable, set: environ.includes(`${variable}=${value}`) }).toEqual({
          app,
          variable,
          set: true,
        });
        if (!variable.endsWith('_FILE')) continue;
        const read = await podman([
          'exec',
          name,
          'node',
          '-e',
          `require('fs').readFileSync(${JSON.stringify(value)})`,
        ]);
        expect({ app, file: value, readable: read.code === 0 }).toEqual({ app, file: value, readable: true });
      }
      // No secret value in the environment: only paths to files.
      for (const entry of environ)
        expect({ app, entry: entry.split('=')[0] }).not.toMatchObject({
          entry: expect.stringMatching(
            /^(DATABASE_URL|PIN_ENCRYPTION_KEY|REDIS_URL|OPERATOR_TOKEN|API_KEYS)$/,
          ) as string,
        });
    }
  });

  it('serves metrics on each server’s metrics port', async () => {
    for (const app of SERVERS) {
      const pod = played.get(`Deployment/${app}`)!;
      const port = pod.workload.pod.containers[0]!.ports!.find(
        ({ name }) => name === 'metrics',
      )!.containerPort;
      const response = await fetch(`http://${pod.ip}:${port}/metrics`, {
        signal: AbortSignal.timeout(5_000),
      });
      expect({ app, status: response.status }).toEqual({ app, status: 200 });
      expect(await response.text()).toContain('dmrv_http_requests_total');
    }
  });

  it('answers a USSD dial through Redis with its password, a registry request, and a protocol request through the chain node', async () => {
    const port = (app: string) =>
      played.get(`Deployment/${app}`)!.workload.pod.containers[0]!.ports!.find(({ name }) => name === 'http')!
        .containerPort;
    const ip = (app: string) => played.get(`Deployment/${app}`)!.ip;
    const dial = await fetch(`http://${ip('ussd-gateway')}:${port('ussd-gateway')}/api/ussd`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        sessionId: `kube-${process.pid}`,
        serviceCode: '*384#',
        phoneNumber: '+254700000125',
        text: '',
      }),
    });
    expect(dial.status).toBe(200);
    expect(await dial.text()).toMatch(new RegExp(`^CON ${content['preMenu.title']}\\n`));
    const redis = played.get('Deployment/redis')!;
    const anonymous = await podman(['exec', redis.containers.get('redis')!, 'redis-cli', 'ping']);
    expect(anonymous.stdout.trim()).toMatch(/^NOAUTH /);
    const registry = await fetch(`http://${ip('registry-api')}:${port('registry-api')}/v1/households/stats`);
    expect(registry.status).toBe(401);
    const did = entityDid(1);
    const entity = await fetch(
      `http://${ip('protocol-gateway')}:${port('protocol-gateway')}/ixo/entity/${did}`,
    );
    expect(entity.status).toBe(200);
    expect(await entity.text()).toContain(did);
  });

  it('stops every server pod with exit code 0 (SIGTERM, drained) within terminationGracePeriodSeconds', async () => {
    for (const app of SERVERS) {
      const pod = played.get(`Deployment/${app}`)!;
      const grace = pod.workload.pod.terminationGracePeriodSeconds ?? 30;
      const name = pod.containers.get(pod.workload.pod.containers[0]!.name)!;
      const began = Date.now();
      await podmanOk(['stop', '--time', String(grace), name], { timeoutMs: (grace + 30) * 1000 });
      const seconds = (Date.now() - began) / 1000;
      const state = (await inspect(name)).State;
      expect({ app, exit: state.ExitCode, withinGrace: seconds < grace }).toEqual({
        app,
        exit: 0,
        withinGrace: true,
      });
      const logs = await podman(['logs', name]);
      expect(logs.stdout + logs.stderr).toContain('SIGTERM received: draining in-flight requests');
    }
  });
});

export type { LabelSelector };
