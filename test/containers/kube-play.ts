import { chownSync, chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import type {
  Container,
  K8sObject,
  LabelSelector,
  Overlay,
  PodSpec,
  Probe,
  Workload,
} from '../kubernetes-manifests';
import { resolvePort, selects } from '../kubernetes-manifests';
import { podman, podmanOk } from './podman';

// The dev overlay's pod specs run under `podman kube play` (podman 4.3, Debian bookworm). What it cannot run, and
// what stands in for it here (docs/deployment.md, "Proven in containers", has the same list):
// - Services (no cluster DNS): each pod gets hostAliases naming every Service of the overlay with the address of the
//   pod its selector selects, so the URLs in the ConfigMaps and Secrets (postgres:5432, redis:6379, …) resolve as in a
//   cluster, and a Service that selects no pod fails the run;
// - Jobs: a Job's pod template is played as a Pod and awaited to exit 0;
// - Secret and ConfigMap volumes, emptyDir, containerPort: see adaptVolumes() and playable();
// - probes: podman runs none of startup/readiness/gRPC probes (and liveness only on systemd timers), so the test
//   performs every probe of every container itself, against the pod's address;
// - HorizontalPodAutoscalers, PodDisruptionBudgets, NetworkPolicies, the Namespace's Pod Security admission: not run;
//   they are validated against the Kubernetes schemas and checked statically (test/kubernetes.spec.ts).

export const THIRD_PARTY = /^(postgres|redis):/;
const TIER_PROBE_LABEL = 'dmrv.containers-tier=probe';

export interface PlayedPod {
  workload: Workload;
  pod: string;
  ip: string;
  /** Container name as podman names it: `<pod>-<container>`. */
  containers: Map<string, string>;
}

interface FileSource {
  defaultMode?: number;
  items?: Array<{ key: string; path: string }>;
}

/**
 * The volumes podman 4.3 mishandles, replaced by what it runs correctly: Secret and ConfigMap volumes become hostPath
 * directories laid out as the kubelet lays them out (a file per key or `items` entry, mode `defaultMode`, group the
 * pod's fsGroup); each emptyDir becomes a fresh directory as the kubelet makes it (podman 4.3 would name a volume after it, so
 * every pod with a volume called `tmp` would share one, root-owned).
 */
function adaptVolumes(
  overlay: Overlay,
  dir: string,
  prefix: string,
  workload: Workload,
): { pod: PodSpec; volumes: string[] } {
  const pod = structuredClone(workload.pod);
  const fsGroup = pod.securityContext?.fsGroup;
  const volumes: string[] = [];
  for (const volume of (pod.volumes ?? []) as Array<Record<string, unknown> & { name: string }>) {
    const secret = volume.secret as (FileSource & { secretName: string }) | undefined;
    const configMap = volume.configMap as (FileSource & { name: string }) | undefined;
    if (volume.emptyDir !== undefined) {
      // As the kubelet makes an emptyDir: a fresh directory, mode 0777, and with fsGroup owned by that group, setgid.
      const target = join(dir, `${prefix}-${workload.object.metadata.name}-${volume.name}`);
      mkdirSync(target, { recursive: true });
      chownSync(target, 0, fsGroup ?? 0);
      chmodSync(target, fsGroup === undefined ? 0o777 : 0o2777);
      delete volume.emptyDir;
      volume.hostPath = { path: target, type: 'Directory' };
      continue;
    }
    if (!secret && !configMap) continue;
    const kind = secret ? 'Secret' : 'ConfigMap';
    const objectName = secret ? secret.secretName : configMap!.name;
    const source = (secret ?? configMap)!;
    const object = overlay.objects.find(
      (candidate) => candidate.kind === kind && candidate.metadata.name === objectName,
    );
    if (!object) throw new Error(`${workload.ref}: ${kind} ${objectName} is not in the overlay`);
    const target = join(dir, `${workload.object.metadata.name}-${volume.name}`);
    mkdirSync(target, { recursive: true });
    chmodSync(target, 0o755);
    const data = object.data ?? {};
    const entries = source.items ?? Object.keys(data).map((key) => ({ key, path: key }));
    for (const { key, path } of entries) {
      const value = data[key];
      if (value === undefined) throw new Error(`${workload.ref}: ${kind} ${objectName} has no key ${key}`);
      const file = join(target, path);
      writeFileSync(file, secret ? Buffer.from(value, 'base64') : value);
      chmodSync(file, source.defaultMode ?? 0o644);
      chownSync(file, 0, fsGroup ?? 0);
    }
    delete volume.secret;
    delete volume.configMap;
    volume.hostPath = { path: target, type: 'Directory' };
  }
  return { pod, volumes };
}

/** The YAML `podman kube play` gets for one workload: the pod spec adapted as described above, with its ConfigMaps. */
export function playable(
  overlay: Overlay,
  workload: Workload,
  options: {
    dir: string;
    prefix: string;
    label: Record<string, string>;
    hosts: Map<string, string>;
    images: Record<string, string>;
  },
): { yaml: string; volumes: string[] } {
  const { pod: spec, volumes } = adaptVolumes(overlay, options.dir, options.prefix, workload);
  for (const container of [...(spec.initContainers ?? []), ...spec.containers]) {
    container.image = options.images[container.image] ?? container.image;
    // podman 4.3 publishes every containerPort on the host (0.0.0.0, clashing with the machine's own PostgreSQL and
    // Redis), and turns a liveness probe into a curl health check the images do not have: the ports stay in the spec
    // the test reads (probes, metrics), not in what podman gets.
    delete container.ports;
    delete container.startupProbe;
    delete container.livenessProbe;
    delete container.readinessProbe;
  }
  (spec as { hostAliases?: unknown }).hostAliases = [...options.hosts].map(([hostname, ip]) => ({
    ip,
    hostnames: [hostname],
  }));
  const labels = { ...workload.labels, ...options.label };
  const name = workload.object.metadata.name;
  const document: K8sObject =
    workload.object.kind === 'Job'
      ? {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, labels },
          spec: spec as unknown as Record<string, unknown>,
        }
      : {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          metadata: { name, labels },
          spec: {
            replicas: 1,
            selector: { matchLabels: workload.labels },
            template: { metadata: { labels }, spec },
          },
        };
  const configMaps = overlay.objects.filter((object) => object.kind === 'ConfigMap');
  return { yaml: [...configMaps, document].map((object) => stringify(object)).join('---\n'), volumes };
}

export async function play(
  played: { yaml: string; volumes: string[] },
  file: string,
  network: string,
  label: string,
  workload: Workload,
): Promise<PlayedPod> {
  for (const volume of played.volumes) await podmanOk(['volume', 'create', '--label', label, volume]);
  writeFileSync(file, played.yaml);
  const output = await podmanOk(['kube', 'play', '--network', network, file], { timeoutMs: 300_000 });
  const podId = /Pod:\s*\n([0-9a-f]{64})/.exec(output)?.[1];
  if (!podId) throw new Error(`kube play of ${workload.ref} named no pod:\n${output}`);
  // podman 4.3 answers one object for one pod, later releases an array.
  const inspected = JSON.parse(await podmanOk(['pod', 'inspect', podId])) as PodInspect | PodInspect[];
  const pod = Array.isArray(inspected) ? inspected[0] : inspected;
  const [infra] = JSON.parse(await podmanOk(['container', 'inspect', await infraOf(podId)])) as Array<{
    NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
  }>;
  const ip = Object.values(infra!.NetworkSettings.Networks)[0]!.IPAddress;
  const containers = new Map<string, string>();
  for (const container of [...(workload.pod.initContainers ?? []), ...workload.pod.containers])
    containers.set(container.name, `${pod!.Name}-${container.name}`);
  return { workload, pod: pod!.Name, ip, containers };
}

interface PodInspect {
  Name: string;
  Containers: Array<{ Id: string; Name: string }>;
}

async function infraOf(podId: string): Promise<string> {
  return (await podmanOk(['pod', 'inspect', '--format', '{{.InfraContainerID}}', podId])).trim();
}

/** The pods a Service's selector picks among those played. */
export function selectedBy(selector: LabelSelector | Record<string, string>, pods: PlayedPod[]): PlayedPod[] {
  const normalised: LabelSelector =
    'matchLabels' in selector || 'matchExpressions' in selector
      ? (selector as LabelSelector)
      : { matchLabels: selector as Record<string, string> };
  return pods.filter(({ workload }) => selects(normalised, workload.labels));
}

/** Performs a probe as the kubelet would, from outside the pod; resolves with whether it succeeded. */
export async function probe(
  played: PlayedPod,
  container: Container,
  spec: Probe,
  context: { network: string; grpcImage: string },
): Promise<boolean> {
  if (spec.httpGet) {
    const port = resolvePort(container, spec.httpGet.port);
    try {
      const response = await fetch(`http://${played.ip}:${port}${spec.httpGet.path ?? '/'}`, {
        signal: AbortSignal.timeout(3_000),
      });
      return response.status >= 200 && response.status < 400;
    } catch {
      return false;
    }
  }
  if (spec.exec) {
    return (await podman(['exec', played.containers.get(container.name)!, ...spec.exec.command])).code === 0;
  }
  if (spec.tcpSocket) {
    const port = resolvePort(container, spec.tcpSocket.port)!;
    const { connect } = await import('node:net');
    return new Promise((resolve) => {
      const socket = connect(port, played.ip);
      socket.setTimeout(3_000, () => {
        socket.destroy();
        resolve(false);
      });
      socket.on('connect', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
  }
  if (spec.grpc) return grpcHealthy(played, spec.grpc.port, context.network, context.grpcImage);
  throw new Error(`${played.workload.ref}/${container.name}: a probe of a kind this test does not perform`);
}

/**
 * grpc.health.v1.Health/Check for the empty service name, as the kubelet's gRPC probe asks, from another container
 * on the pod network (the chain node's image, which carries @grpc/grpc-js and the health proto).
 */
async function grpcHealthy(
  played: PlayedPod,
  port: number,
  network: string,
  image: string,
): Promise<boolean> {
  const script = `
    const grpc = require('@grpc/grpc-js');
    const loader = require('@grpc/proto-loader');
    const { join, dirname } = require('path');
    const root = join(dirname(require.resolve('@dmrv/proto/package.json')), 'proto');
    const definition = loader.loadSync('grpc/health/v1/health.proto', { includeDirs: [root], enums: String });
    const { Health } = grpc.loadPackageDefinition(definition).grpc.health.v1;
    const client = new Health(process.argv[1], grpc.credentials.createInsecure());
    client.Check({ service: '' }, { deadline: Date.now() + 3000 }, (error, reply) => {
      process.stdout.write(error ? 'error ' + error.code : String(reply.status));
      process.exit(0);
    });`;
  const result = await podman([
    'run',
    '--rm',
    '--network',
    network,
    '--label',
    `${TIER_PROBE_LABEL}`,
    '--entrypoint',
    'node',
    image,
    '-e',
    script,
    `${played.ip}:${port}`,
  ]);
  return result.code === 0 && result.stdout.trim() === 'SERVING';
}
