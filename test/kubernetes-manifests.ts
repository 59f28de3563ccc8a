import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';

export const KUBERNETES_DIR = join(REPO_ROOT, 'deploy', 'kubernetes');
export const OVERLAYS = ['dev', 'production', 'production-monitoring'] as const;
/** `production-monitoring` is production with the Prometheus Operator's objects: everything said of one holds of both. */
export const isProduction = (name: string): boolean => name.startsWith('production');
export type OverlayName = (typeof OVERLAYS)[number];

/** The parts of a Kubernetes object these checks read; everything else stays `unknown`. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
  [field: string]: unknown;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }>;
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

export interface Probe {
  httpGet?: { path?: string; port: number | string };
  tcpSocket?: { port: number | string };
  grpc?: { port: number };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: EnvVar[];
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown; httpGet?: unknown } };
  resources?: { requests?: Record<string, string | number>; limits?: Record<string, string | number> };
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    privileged?: boolean;
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[]; add?: string[] };
    seccompProfile?: { type: string };
  };
}

export interface Volume {
  name: string;
  secret?: { secretName: string; items?: Array<{ key: string; path: string }>; optional?: boolean };
  configMap?: { name: string; items?: Array<{ key: string; path: string }>; optional?: boolean };
  [type: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  securityContext?: {
    runAsNonRoot?: boolean;
    runAsUser?: number;
    runAsGroup?: number;
    fsGroup?: number;
    seccompProfile?: { type: string };
  };
  terminationGracePeriodSeconds?: number;
  automountServiceAccountToken?: boolean;
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  topologySpreadConstraints?: Array<{ labelSelector?: LabelSelector; matchLabelKeys?: string[] }>;
}

/** A Deployment's or a Job's pod template, with what it belongs to. */
export interface Workload {
  object: K8sObject;
  /** `Deployment/registry-api`. */
  ref: string;
  labels: Record<string, string>;
  pod: PodSpec;
}

export interface Overlay {
  name: OverlayName;
  objects: K8sObject[];
  workloads: Workload[];
}

export function refOf(object: K8sObject): string {
  return `${object.kind}/${object.metadata.name}`;
}

/**
 * Renders an overlay as `kubectl kustomize` does, from a copy of deploy/kubernetes: the dev overlay's secretGenerator
 * reads git-ignored files, which the copy gets from deploy/compose-secrets.sh (random values, as a developer's would
 * be), so the checks never depend on what lies in the working tree.
 */
export function renderOverlays(): Map<OverlayName, Overlay> {
  const scratch = mkdtempSync(join(tmpdir(), 'dmrv-kubernetes-'));
  try {
    const copy = join(scratch, 'kubernetes');
    cpSync(KUBERNETES_DIR, copy, { recursive: true });
    const devSecrets = join(copy, 'overlays', 'dev', 'secrets');
    rmSync(devSecrets, { recursive: true, force: true });
    mkdirSync(devSecrets);
    execFileSync('sh', [join(REPO_ROOT, 'deploy', 'compose-secrets.sh'), devSecrets], { stdio: 'pipe' });
    return new Map(OVERLAYS.map((name) => [name, renderOverlay(name, join(copy, 'overlays', name))]));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

function renderOverlay(name: OverlayName, dir: string): Overlay {
  let rendered: string;
  try {
    rendered = execFileSync('kubectl', ['kustomize', dir], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const { stderr, message } = error as { stderr?: string; message: string };
    throw new Error(`kubectl kustomize deploy/kubernetes/overlays/${name} failed: ${stderr || message}`);
  }
  const objects = parseAllDocuments(rendered).map((document) => document.toJS() as K8sObject);
  return { name, objects, workloads: workloadsOf(objects) };
}

function workloadsOf(objects: K8sObject[]): Workload[] {
  return objects
    .filter((object) => ['Deployment', 'StatefulSet', 'DaemonSet', 'Job'].includes(object.kind))
    .map((object) => {
      const template = object.spec!.template as {
        metadata?: { labels?: Record<string, string> };
        spec: PodSpec;
      };
      return { object, ref: refOf(object), labels: template.metadata?.labels ?? {}, pod: template.spec };
    });
}

export function find(overlay: Overlay, kind: string, name: string): K8sObject | undefined {
  return overlay.objects.find((object) => object.kind === kind && object.metadata.name === name);
}

export function selects(selector: LabelSelector | undefined, labels: Record<string, string>): boolean {
  if (!selector) return false;
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every((expression) => {
    const value = labels[expression.key];
    switch (expression.operator) {
      case 'In':
        return value !== undefined && (expression.values ?? []).includes(value);
      case 'NotIn':
        return value === undefined || !(expression.values ?? []).includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
    }
  });
  return byLabels && byExpressions;
}

export function containersOf(pod: PodSpec): Container[] {
  return [...(pod.initContainers ?? []), ...pod.containers];
}

/** A named or numbered container port → its number; undefined when the container has no such port. */
export function resolvePort(container: Container, port: number | string): number | undefined {
  const ports = container.ports ?? [];
  if (typeof port === 'number') return ports.some((entry) => entry.containerPort === port) ? port : undefined;
  return ports.find((entry) => entry.name === port)?.containerPort;
}

/**
 * The variables a container starts with, as far as the manifests say: the ConfigMaps of `envFrom` first, then
 * `env` (which wins, as in Kubernetes). A value from `valueFrom` is unknown here and recorded as undefined.
 */
export function effectiveEnv(overlay: Overlay, container: Container): Map<string, string | undefined> {
  const env = new Map<string, string | undefined>();
  for (const source of container.envFrom ?? []) {
    if (source.configMapRef) {
      const data = find(overlay, 'ConfigMap', source.configMapRef.name)?.data ?? {};
      for (const [name, value] of Object.entries(data)) env.set(name, value);
    }
  }
  for (const variable of container.env ?? []) env.set(variable.name, variable.value);
  return env;
}

/** Where a file path inside a container comes from: the Secret (or ConfigMap) and key mounted there. */
export function mountedFile(
  pod: PodSpec,
  container: Container,
  path: string,
): { kind: 'Secret' | 'ConfigMap'; name: string; key: string } | { problem: string } {
  const mount = (container.volumeMounts ?? []).find((candidate) =>
    path.startsWith(`${candidate.mountPath}/`),
  );
  if (!mount) return { problem: `no volume is mounted at ${path}` };
  const volume = (pod.volumes ?? []).find((candidate) => candidate.name === mount.name);
  const source = volume?.secret
    ? { kind: 'Secret' as const, name: volume.secret.secretName, items: volume.secret.items }
    : volume?.configMap
      ? { kind: 'ConfigMap' as const, name: volume.configMap.name, items: volume.configMap.items }
      : undefined;
  if (!source) return { problem: `${mount.mountPath} is not a Secret or ConfigMap volume` };
  const file = path.slice(mount.mountPath.length + 1);
  const key = source.items ? source.items.find((item) => item.path === file)?.key : file;
  if (key === undefined) return { problem: `${source.kind} volume ${volume!.name} does not project ${file}` };
  return { kind: source.kind, name: source.name, key };
}

// --- Routes of an app, from the controllers Nest would mount -----------------------------------------------------

// Nest's metadata keys and its RequestMethod.GET (`@nestjs/common/constants`), spelt out because the workspace root
// does not depend on @nestjs/common. Were they to change, no app would serve /health/live here and the probe check
// would say so.
const PATH_METADATA = 'path';
const METHOD_METADATA = 'method';
const MODULE_CONTROLLERS = 'controllers';
const MODULE_IMPORTS = 'imports';
const REQUEST_METHOD_GET = 0;

type ModuleReference = object | (abstract new (...args: never[]) => unknown);

interface DynamicModuleShape {
  module: ModuleReference;
  imports?: unknown[];
  controllers?: unknown[];
}

/**
 * Every controller of a root module, found the way Nest finds them: the `@Module()` metadata of each module class
 * and the `imports`/`controllers` of each dynamic module, recursively. Nothing is instantiated.
 */
export function controllersOf(root: unknown): Array<new (...args: never[]) => unknown> {
  const seen = new Set<unknown>();
  const found: Array<new (...args: never[]) => unknown> = [];
  const visit = (entry: unknown): void => {
    if (entry === undefined || entry === null || seen.has(entry)) return;
    seen.add(entry);
    if (typeof entry === 'object' && 'forwardRef' in entry) {
      visit((entry as { forwardRef: () => unknown }).forwardRef());
      return;
    }
    if (entry instanceof Promise)
      throw new Error('an asynchronous module import cannot be walked statically');
    const dynamic = typeof entry === 'function' ? undefined : (entry as DynamicModuleShape);
    const moduleClass = typeof entry === 'function' ? entry : dynamic?.module;
    if (moduleClass === undefined) return;
    const read = (key: string): unknown[] =>
      (Reflect.getMetadata(key, moduleClass) as unknown[] | undefined) ?? [];
    for (const controller of [...read(MODULE_CONTROLLERS), ...(dynamic?.controllers ?? [])]) {
      if (!found.includes(controller as never)) found.push(controller as new (...args: never[]) => unknown);
    }
    for (const imported of [...read(MODULE_IMPORTS), ...(dynamic?.imports ?? [])]) visit(imported);
  };
  visit(root);
  return found;
}

function asList(value: unknown): string[] {
  if (value === undefined) return ['/'];
  return Array.isArray(value) ? (value as string[]) : [value as string];
}

function joinPath(...parts: string[]): string {
  const joined = parts
    .flatMap((part) => part.split('/'))
    .filter((segment) => segment !== '')
    .join('/');
  return `/${joined}`;
}

/** `GET /health/live`-style routes of these controllers, before any global prefix. */
export function controllerRoutes(
  controllers: Array<new (...args: never[]) => unknown>,
): Array<{ method: string; path: string }> {
  const routes: Array<{ method: string; path: string }> = [];
  for (const controller of controllers) {
    const prefixes = asList(Reflect.getMetadata(PATH_METADATA, controller));
    const prototype = controller.prototype as Record<string, unknown>;
    for (const property of Object.getOwnPropertyNames(prototype)) {
      const handler = prototype[property];
      if (property === 'constructor' || typeof handler !== 'function') continue;
      const paths = Reflect.getMetadata(PATH_METADATA, handler) as string | string[] | undefined;
      if (paths === undefined) continue;
      const method = Reflect.getMetadata(METHOD_METADATA, handler) === REQUEST_METHOD_GET ? 'GET' : 'other';
      for (const prefix of prefixes)
        for (const path of asList(paths)) routes.push({ method, path: joinPath(prefix, path) });
    }
  }
  return routes;
}

/**
 * Paths an app's `bootstrap.ts` keeps out of its global prefix (`setGlobalPrefix(…, { exclude: [{ path }] })`), or
 * undefined when it sets none. Read from the source because the prefix is applied to the running app only.
 */
export function globalPrefixExclusions(bootstrapSource: string): string[] | undefined {
  const start = bootstrapSource.indexOf('setGlobalPrefix(');
  if (start === -1) return undefined;
  const call = bootstrapSource.slice(start, bootstrapSource.indexOf(');', start));
  return [...call.matchAll(/path:\s*'([^']*)'/g)].map(([, path]) => joinPath(path!));
}

/** The paths an app serves for GET, literally (no `:param`, no wildcard), with its global prefix applied. */
export function servedGetPaths(
  routes: Array<{ method: string; path: string }>,
  globalPrefix: string,
  exclusions: string[],
): Set<string> {
  return new Set(
    routes
      .filter((route) => route.method === 'GET' && !/[:*]/.test(route.path))
      .map((route) =>
        globalPrefix === '' || exclusions.includes(route.path)
          ? route.path
          : joinPath(globalPrefix, route.path),
      ),
  );
}
