import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { BaseServiceConfig, loadConfig, readVariable } from '@dmrv/config';
import { exampleEnv, REPO_ROOT } from '@dmrv/testing';
import { AppModule as RegistryAppModule } from '../apps/registry-api/src/app.module';
import { apiBasePath, RegistryConfig } from '../apps/registry-api/src/config/registry.config';
import { AppModule as UssdAppModule } from '../apps/ussd-gateway/src/app.module';
import { UssdConfig } from '../apps/ussd-gateway/src/config/ussd.config';
import { AppModule as ProtocolAppModule } from '../apps/protocol-gateway/src/app.module';
import { ProtocolGatewayConfig } from '../apps/protocol-gateway/src/config/protocol-gateway.config';
import { parseDockerfile } from './dockerfile';
import {
  Container,
  containersOf,
  isProduction,
  controllerRoutes,
  controllersOf,
  effectiveEnv,
  find,
  globalPrefixExclusions,
  K8sObject,
  KUBERNETES_DIR,
  LabelSelector,
  mountedFile,
  Overlay,
  OverlayName,
  OVERLAYS,
  refOf,
  renderOverlays,
  resolvePort,
  selects,
  servedGetPaths,
  Workload,
} from './kubernetes-manifests';
import { isBuiltInKind, schemaProblems, unknownFieldProblems } from './kubernetes-schemas';

// deploy/kubernetes rendered as a cluster would receive it (`kubectl kustomize`), then checked three ways: every
// object against the Kubernetes (and Prometheus Operator) schemas of kubernetes-models, every field name against
// the same models' types, and every reference between objects, and from the objects into the apps (routes,
// configuration classes, Dockerfiles) and into docs/deployment.md. Each check lists every broken reference it
// finds, naming the object, so a failure says what to fix.

/**
 * Names the manifests may use before any app has them (work landing in parallel): accepted while no app has them;
 * once any app has one, every app the manifests use it for must. Empty: /health/ready and METRICS_PORT have landed.
 */
const AWAITED_ROUTES: string[] = [];
const AWAITED_VARIABLES: string[] = [];

type AppConfig = BaseServiceConfig;

interface AppEntry {
  config: new () => AppConfig;
  rootModule: (config: never) => unknown;
  globalPrefix: (config: never) => string;
}

/** The three services by their pods' `app.kubernetes.io/name`. */
const APPS: Record<string, AppEntry> = {
  'registry-api': {
    config: RegistryConfig,
    rootModule: (config: RegistryConfig) => RegistryAppModule.forRoot(config),
    globalPrefix: (config: RegistryConfig) => apiBasePath(config),
  },
  'ussd-gateway': {
    config: UssdConfig,
    rootModule: (config: UssdConfig) => UssdAppModule.forRoot(config),
    globalPrefix: () => '',
  },
  'protocol-gateway': {
    config: ProtocolGatewayConfig,
    rootModule: (config: ProtocolGatewayConfig) => ProtocolAppModule.forRoot(config),
    globalPrefix: () => '',
  },
};
const APP_NAMES = Object.keys(APPS);

const NAME_LABEL = 'app.kubernetes.io/name';
const RUNBOOK_BASE = 'https://github.com/dmrv-gateway-stack/dmrv-gateway-stack/blob/main/docs/runbooks/';
// Database URLs carry the role's password: DATABASE_URL, DATABASE_REPLICA_URLS, DATABASE_LISTEN_URL.
const SECRET_NAME = /PASSWORD|_KEY$|_KEYS$|TOKEN|SECRET|DATABASE_(\w+_)?URLS?$/;
const PROMETHEUS_POD = { [NAME_LABEL]: 'prometheus' };

/** An overlay's platform.env: where the ingress controller and Prometheus run, host names, the IngressClass. */
function platformOf(name: OverlayName): Record<string, string> {
  const dir = name === 'production-monitoring' ? 'production' : name;
  return Object.fromEntries(
    readFileSync(join(KUBERNETES_DIR, 'overlays', dir, 'platform.env'), 'utf8')
      .split('\n')
      .filter((line) => /^[A-Z_]+=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

function declaredVariables(config: new () => object): Set<string> {
  return new Set(
    getMetadataStorage()
      .getTargetValidationMetadatas(config, '', true, false)
      .map((metadata) => metadata.propertyName),
  );
}

/** Variables each non-app workload reads, from its own source. */
function otherWorkloadVariables(name: string): Set<string> | undefined {
  switch (name) {
    case 'local-chain-node': {
      const source = readFileSync(join(REPO_ROOT, 'tools', 'local-chain-node', 'src', 'options.ts'), 'utf8');
      return new Set([
        'NODE_ENV',
        ...[...source.matchAll(/\b(CHAIN_NODE_[A-Z_]+)\b/g)].map(([, name]) => name!),
      ]);
    }
    case 'postgres': {
      // The official image's entrypoint, and the init script it runs (deploy/postgres/10-databases.sh).
      const init = readFileSync(join(REPO_ROOT, 'deploy', 'postgres', '10-databases.sh'), 'utf8');
      return new Set([
        'POSTGRES_USER',
        'POSTGRES_DB',
        'POSTGRES_PASSWORD_FILE',
        'PGDATA',
        ...[...init.matchAll(/\$\{?([A-Z][A-Z0-9_]+)/g)].map(([, name]) => name!),
      ]);
    }
    case 'redis':
      return new Set();
    default:
      return undefined;
  }
}

// --- docs/deployment.md, the Kubernetes chapter ------------------------------------------------------------------

const DOC = readFileSync(join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
const CHAPTER_TITLE = '## Kubernetes: from zero to running on a cluster';

function kubernetesChapter(): string {
  const start = DOC.indexOf(CHAPTER_TITLE);
  if (start === -1) throw new Error(`docs/deployment.md has no chapter "${CHAPTER_TITLE}"`);
  const next = DOC.indexOf('\n## ', start + CHAPTER_TITLE.length);
  return DOC.slice(start, next === -1 ? undefined : next);
}

/** `| \`secret\` | \`key\` | …` rows: the Secrets an operator creates before applying the production overlay. */
function documentedSecrets(): Map<string, Set<string>> {
  const secrets = new Map<string, Set<string>>();
  for (const [, name, key] of kubernetesChapter().matchAll(/^\| `([a-z0-9-]+)` \| `([a-z0-9_]+)` \|/gm)) {
    secrets.set(name!, (secrets.get(name!) ?? new Set()).add(key!));
  }
  return secrets;
}

/** `| \`metric_name\` | …` rows of the metrics table. */
function documentedMetrics(): Set<string> {
  return new Set(
    [...kubernetesChapter().matchAll(/^\| `([a-z_:][a-z0-9_:]*)` \|/gm)].map(([, name]) => name!),
  );
}

/** ConfigMaps an overlay expects to exist already, and the documented command that creates each. */
const EXTERNAL_CONFIG_MAPS: Record<string, { overlay: OverlayName; command: string }> = {
  'postgres-init': {
    overlay: 'dev',
    command: 'kubectl -n dmrv-dev create configmap postgres-init --from-file=deploy/postgres/10-databases.sh',
  },
};

// --- helpers over a rendered overlay -------------------------------------------------------------------------------

function appOf(workload: Workload): string | undefined {
  const name = workload.labels[NAME_LABEL];
  return name !== undefined && name in APPS ? name : undefined;
}

function isServer(workload: Workload): boolean {
  return workload.object.kind === 'Deployment' && appOf(workload) !== undefined;
}

function mainContainer(workload: Workload): Container {
  return workload.pod.containers[0]!;
}

/** The apps with migrations; each server applies them in an init container before it starts. */
const MIGRATING_APPS = ['registry-api', 'ussd-gateway'] as const;

function migrateContainer(server: Workload): Container | undefined {
  return server.pod.initContainers?.find((container) => container.name === 'migrate');
}

function secretKeys(overlay: Overlay, name: string): Set<string> | undefined {
  const secret = find(overlay, 'Secret', name);
  if (secret)
    return new Set([...Object.keys(secret.data ?? {}), ...Object.keys((secret.stringData as object) ?? {})]);
  return isProduction(overlay.name) ? documentedSecrets().get(name) : undefined;
}

function secretValue(overlay: Overlay, name: string, key: string): string | undefined {
  const data = find(overlay, 'Secret', name)?.data?.[key];
  return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
}

/** Values for the Secrets that exist outside the overlay: the committed examples, never real secrets. */
function sampleSecret(variable: string): string | undefined {
  const example = exampleEnv();
  const samples: Record<string, string | undefined> = {
    DATABASE_URL: example.REGISTRY_DATABASE_URL,
    DATABASE_REPLICA_URLS: example.DATABASE_REPLICA_URLS,
    DATABASE_LISTEN_URL: example.DATABASE_LISTEN_URL,
    PIN_ENCRYPTION_KEY: example.PIN_ENCRYPTION_KEY,
    OPERATOR_TOKEN: example.OPERATOR_TOKEN,
    EVENTS_TOKEN: example.EVENTS_TOKEN,
    REDIS_URL: example.REDIS_URL,
    // .env.example leaves API_KEYS empty (ACCESS_MODE=open); any key of 16+ URL-safe characters.
    API_KEYS: 'example-api-key-0123456789',
    // A PEM does not fit on an .env line: a key made for the test.
    SIGNING_KEY: generateKeyPairSync('ed25519')
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString(),
  };
  return samples[variable];
}

/**
 * The configuration an app container would start with: its variables as the manifests give them, each `X_FILE`
 * pointed at a temporary file holding what the Secret mounted there holds (the overlay's own Secret, or a sample for
 * a documented external one), then the app's own `loadConfig`.
 */
function loadContainerConfig(overlay: Overlay, workload: Workload, scratch: string): AppConfig {
  const app = APPS[appOf(workload)!]!;
  const container = mainContainer(workload);
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of effectiveEnv(overlay, container)) {
    if (value === undefined) continue;
    if (!name.endsWith('_FILE')) {
      env[name] = value;
      continue;
    }
    const source = mountedFile(workload.pod, container, value);
    if ('problem' in source) throw new Error(`${name}: ${source.problem}`);
    const external =
      source.kind === 'Secret' &&
      !find(overlay, 'Secret', source.name) &&
      documentedSecrets().get(source.name)?.has(source.key);
    const content = external
      ? sampleSecret(name.slice(0, -'_FILE'.length))
      : source.kind === 'Secret'
        ? secretValue(overlay, source.name, source.key)
        : undefined;
    if (content === undefined) throw new Error(`${name}: no value for ${source.name}/${source.key}`);
    const file = join(scratch, `${overlay.name}-${workload.object.metadata.name}-${name}`);
    writeFileSync(file, content);
    env[name] = file;
  }
  return loadConfig(appOf(workload)!, app.config, env);
}

function podSecurityProblems(workload: Workload): string[] {
  const problems: string[] = [];
  const pod = workload.pod;
  const say = (problem: string) => problems.push(`${workload.ref}: ${problem}`);
  if (pod.hostNetwork || pod.hostPID || pod.hostIPC) say('shares a host namespace');
  const allowedVolumes = [
    'configMap',
    'csi',
    'downwardAPI',
    'emptyDir',
    'ephemeral',
    'persistentVolumeClaim',
    'projected',
    'secret',
  ];
  for (const volume of pod.volumes ?? []) {
    const types = Object.keys(volume).filter((key) => key !== 'name');
    if (!types.every((type) => allowedVolumes.includes(type)))
      say(`volume ${volume.name} is of type ${types.join(', ')}`);
  }
  for (const container of containersOf(pod)) {
    const context = container.securityContext ?? {};
    const where = `container ${container.name}`;
    if ((context.runAsNonRoot ?? pod.securityContext?.runAsNonRoot) !== true) say(`${where} may run as root`);
    if ((context.runAsUser ?? pod.securityContext?.runAsUser) === 0) say(`${where} runs as uid 0`);
    const seccomp = context.seccompProfile?.type ?? pod.securityContext?.seccompProfile?.type;
    if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost')
      say(`${where} has no RuntimeDefault seccomp profile`);
    if (context.privileged === true) say(`${where} is privileged`);
    if (context.allowPrivilegeEscalation !== false) say(`${where} allows privilege escalation`);
    if (!(context.capabilities?.drop ?? []).includes('ALL')) say(`${where} keeps capabilities (drop ALL)`);
    if ((context.capabilities?.add ?? []).some((capability) => capability !== 'NET_BIND_SERVICE'))
      say(`${where} adds capabilities`);
    if (context.readOnlyRootFilesystem !== true) say(`${where} has a writable root filesystem`);
    for (const resource of ['cpu', 'memory']) {
      if (container.resources?.requests?.[resource] === undefined) say(`${where} requests no ${resource}`);
      if (container.resources?.limits?.[resource] === undefined) say(`${where} has no ${resource} limit`);
    }
  }
  return problems;
}

function workloadsSelectedBy(overlay: Overlay, selector: LabelSelector | undefined): Workload[] {
  return overlay.workloads.filter((workload) => selects(selector, workload.labels));
}

/** The metric families a PromQL expression reads: the prefixes of those we chart or alert on, and `up{…}`. */
function metricNames(expression: string): string[] {
  return [...expression.matchAll(/\b((?:dmrv|nodejs|process|kube|container)_[a-z0-9_]+|up(?=\s*\{))\b/g)].map(
    ([, name]) => name!,
  );
}

// --- the checks ----------------------------------------------------------------------------------------------------

describe('deploy/kubernetes', () => {
  const overlays = renderOverlays();
  const scratch = mkdtempSync(join(tmpdir(), 'dmrv-kubernetes-config-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  describe.each(OVERLAYS.map((name) => [name] as const))('overlay %s', (name) => {
    const overlay = overlays.get(name)!;
    const servers = overlay.workloads.filter(isServer);
    const configs = new Map<string, AppConfig>();
    const configFailures: string[] = [];
    for (const server of servers) {
      try {
        configs.set(appOf(server)!, loadContainerConfig(overlay, server, scratch));
      } catch (error) {
        configFailures.push(`${server.ref}: ${(error as Error).message}`);
      }
    }

    it('renders the three services, their migrations and the objects around them', () => {
      const kinds = (kind: string) =>
        overlay.objects
          .filter((object) => object.kind === kind)
          .map((object) => object.metadata.name)
          .sort();
      expect(servers.map((server) => appOf(server)).sort()).toEqual([...APP_NAMES].sort());
      expect(kinds('Job')).toEqual([]);
      for (const kind of ['Service', 'HorizontalPodAutoscaler', 'PodDisruptionBudget', 'NetworkPolicy']) {
        expect({ kind, missing: APP_NAMES.filter((app) => !kinds(kind).includes(app)) }).toEqual({
          kind,
          missing: [],
        });
      }
      const namespaces = new Set(
        overlay.objects.filter((o) => o.kind !== 'Namespace').map((o) => o.metadata.namespace),
      );
      expect([...namespaces]).toEqual([
        find(overlay, 'Namespace', name === 'dev' ? 'dmrv-dev' : 'dmrv')!.metadata.name,
      ]);
      if (name === 'dev') {
        expect(kinds('Deployment')).toEqual([...APP_NAMES, 'local-chain-node', 'postgres', 'redis'].sort());
      } else {
        expect(kinds('Deployment')).toEqual([...APP_NAMES].sort());
        expect(kinds('Ingress')).toEqual([...APP_NAMES].sort());
        expect(kinds('ServiceMonitor')).toEqual(
          name === 'production-monitoring' ? [...APP_NAMES].sort() : [],
        );
        expect(kinds('PrometheusRule')).toEqual(name === 'production-monitoring' ? ['dmrv'] : []);
      }
      // platform.env is read at build time only: never applied.
      expect(kinds('ConfigMap')).not.toContain('dmrv-platform');
    });

    if (isProduction(name))
      it('routes each public service through an Ingress with TLS, on platform.env’s host and IngressClass, to its Service’s HTTP port', () => {
        const platform = platformOf(name);
        const hostOf: Record<string, string | undefined> = {
          'registry-api': platform.REGISTRY_API_HOST,
          'protocol-gateway': platform.PROTOCOL_GATEWAY_HOST,
          'ussd-gateway': platform.USSD_GATEWAY_HOST,
        };
        for (const app of APP_NAMES) {
          const ingress = find(overlay, 'Ingress', app)!;
          const spec = ingress.spec as {
            ingressClassName?: string;
            tls?: Array<{ hosts: string[]; secretName: string }>;
            rules: Array<{
              host: string;
              http: {
                paths: Array<{
                  path: string;
                  pathType: string;
                  backend: { service: { name: string; port: { name?: string; number?: number } } };
                }>;
              };
            }>;
          };
          const host = hostOf[app];
          expect({ app, host }).toEqual({
            app,
            host: expect.stringMatching(/^[a-z0-9.-]+\.[a-z]{2,}$/) as string,
          });
          expect({
            app,
            class: spec.ingressClassName,
            tls: spec.tls,
            hosts: spec.rules.map((rule) => rule.host),
          }).toEqual({
            app,
            class: platform.INGRESS_CLASS,
            tls: [{ hosts: [host], secretName: `${app}-tls` }],
            hosts: [host],
          });
          const service = find(overlay, 'Service', app)!;
          const ports = (service.spec as { ports: Array<{ name: string }> }).ports.map((port) => port.name);
          const paths = spec.rules[0]!.http.paths;
          for (const { backend } of paths)
            expect({
              app,
              backend: backend.service.name,
              port: backend.service.port.name,
              exists: ports.includes(backend.service.port.name ?? ''),
            }).toEqual({
              app,
              backend: app,
              port: 'http',
              exists: true,
            });
          // The aggregator's two callbacks exactly: the operator endpoints under /api/ussd/ stay unrouted.
          expect({ app, paths: paths.map(({ path, pathType }) => `${pathType} ${path}`) }).toEqual({
            app,
            paths: app === 'ussd-gateway' ? ['Exact /api/ussd', 'Exact /api/ussd/events'] : ['Prefix /'],
          });
        }
      });

    it('validates every object against its Kubernetes or Prometheus Operator schema (kubernetes-models)', () => {
      expect(schemaProblems(overlay.objects)).toEqual([]);
    });

    it('uses no field name the API does not know, at any depth', () => {
      expect(unknownFieldProblems(overlay.objects)).toEqual([]);
    }, 60_000);

    it('runs every pod under the restricted Pod Security Standard, read-only, with requests and limits', () => {
      const labels = find(overlay, 'Namespace', name === 'dev' ? 'dmrv-dev' : 'dmrv')!.metadata.labels ?? {};
      expect(labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
      expect(overlay.workloads.flatMap(podSecurityProblems)).toEqual([]);
      // None of them talks to the Kubernetes API: no token to steal.
      expect(
        overlay.workloads.filter((w) => w.pod.automountServiceAccountToken !== false).map((w) => w.ref),
      ).toEqual([]);
    });

    it("runs the app images as their Dockerfile's USER", () => {
      const problems: string[] = [];
      for (const workload of overlay.workloads.filter((w) => appOf(w) !== undefined)) {
        const dockerfile = parseDockerfile(
          readFileSync(join(REPO_ROOT, 'apps', appOf(workload)!, 'Dockerfile'), 'utf8'),
        );
        const runtime = dockerfile.stages[dockerfile.stages.length - 1]!;
        const user = runtime.instructions.filter((instruction) => instruction.keyword === 'USER').pop()?.args;
        const context = workload.pod.securityContext ?? {};
        if (`${context.runAsUser}:${context.runAsGroup}` !== user) {
          problems.push(
            `${workload.ref}: runs as ${context.runAsUser}:${context.runAsGroup}, the image as ${user}`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('takes every image from the overlay, pinned, and runs each migration with its server’s image', () => {
      const problems: string[] = [];
      for (const workload of overlay.workloads) {
        for (const container of containersOf(workload.pod)) {
          const image = container.image;
          const app = appOf(workload) ?? workload.labels[NAME_LABEL]!;
          const ours = /^dmrv-/.test(image) || image.includes('dmrv');
          if (/^dmrv-[a-z-]+$/.test(image))
            problems.push(
              `${workload.ref}: ${image} is the base's placeholder; the overlay sets no image for it`,
            );
          if (!/:[A-Za-z0-9._-]+$|@sha256:[0-9a-f]{64}$/.test(image) || image.endsWith(':latest')) {
            problems.push(`${workload.ref}: ${image} is not pinned to a tag or digest`);
          }
          if (ours && !image.split('@')[0]!.split(':')[0]!.endsWith(app))
            problems.push(`${workload.ref}: runs ${image}, not the ${app} image`);
          if (
            ours &&
            isProduction(name) &&
            !/^ghcr\.io\/[a-z0-9-]+\/dmrv-[a-z-]+:\d+\.\d+\.\d+$/.test(image)
          ) {
            problems.push(`${workload.ref}: ${image} is not ghcr.io/<org>/dmrv-<app>:<version>`);
          }
          if (ours && name === 'dev' && image !== `dmrv/${app}:local`) {
            problems.push(
              `${workload.ref}: ${image} is not dmrv/${app}:local, the tag docs/deployment.md builds`,
            );
          }
        }
      }
      for (const server of servers) {
        const migrate = migrateContainer(server);
        if (migrate && migrate.image !== mainContainer(server).image) {
          problems.push(
            `${server.ref}: migrates with ${migrate.image}, serves with ${mainContainer(server).image}`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('points every Service at the pods of one Deployment, on ports those pods have', () => {
      const problems: string[] = [];
      for (const service of overlay.objects.filter((object) => object.kind === 'Service')) {
        const spec = service.spec as {
          selector?: Record<string, string>;
          ports: Array<{ name: string; targetPort: number | string }>;
        };
        const selected = workloadsSelectedBy(overlay, { matchLabels: spec.selector ?? {} });
        if (selected.length !== 1 || selected[0]!.object.kind !== 'Deployment') {
          problems.push(
            `${refOf(service)}: selects ${selected.map((w) => w.ref).join(', ') || 'no pod'}, not one Deployment's pods`,
          );
          continue;
        }
        for (const port of spec.ports) {
          if (
            !containersOf(selected[0]!.pod).some(
              (container) => resolvePort(container, port.targetPort) !== undefined,
            )
          ) {
            problems.push(
              `${refOf(service)}: port ${port.name} targets ${port.targetPort}, which ${selected[0]!.ref} does not expose`,
            );
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('gives every app config the app accepts at start-up (its own loadConfig, Secrets as files)', () => {
      expect(configFailures).toEqual([]);
      expect([...configs.keys()].sort()).toEqual([...APP_NAMES].sort());
    });

    it('sets only variables the workload reads (the app configuration classes), never X and X_FILE together', () => {
      const problems: string[] = [];
      const declaredAnywhere = (variable: string) =>
        APP_NAMES.some((app) => declaredVariables(APPS[app]!.config).has(variable));
      for (const workload of overlay.workloads) {
        const app = appOf(workload);
        const known = app
          ? declaredVariables(APPS[app]!.config)
          : otherWorkloadVariables(workload.labels[NAME_LABEL]!);
        for (const container of containersOf(workload.pod)) {
          const env = effectiveEnv(overlay, container);
          for (const variable of env.keys()) {
            const read =
              variable.endsWith('_FILE') && !known?.has(variable)
                ? variable.slice(0, -'_FILE'.length)
                : variable;
            const awaited = app !== undefined && AWAITED_VARIABLES.includes(read) && !declaredAnywhere(read);
            if (!known?.has(read) && !awaited)
              problems.push(
                `${workload.ref}: ${variable} is not read by ${app ?? workload.labels[NAME_LABEL]}`,
              );
            if (env.has(`${variable}_FILE`))
              problems.push(
                `${workload.ref}: sets both ${variable} and ${variable}_FILE (refused at start-up)`,
              );
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('hands secrets over as files from Secrets, never as values in a manifest', () => {
      const problems: string[] = [];
      for (const workload of overlay.workloads) {
        for (const container of containersOf(workload.pod)) {
          for (const variable of container.env ?? []) {
            if (variable.valueFrom)
              problems.push(`${workload.ref}: ${variable.name} comes from valueFrom; secrets are files here`);
            if (!SECRET_NAME.test(variable.name.replace(/_FILE$/, ''))) continue;
            if (!variable.name.endsWith('_FILE')) {
              problems.push(
                `${workload.ref}: ${variable.name} carries a secret as a value; mount it and set ${variable.name}_FILE`,
              );
              continue;
            }
            const source = mountedFile(workload.pod, container, variable.value ?? '');
            if ('problem' in source) problems.push(`${workload.ref}: ${variable.name}: ${source.problem}`);
            else if (source.kind !== 'Secret')
              problems.push(`${workload.ref}: ${variable.name} reads a ${source.kind}, not a Secret`);
          }
        }
      }
      for (const configMap of overlay.objects.filter((object) => object.kind === 'ConfigMap')) {
        for (const key of Object.keys(configMap.data ?? {})) {
          if (SECRET_NAME.test(key)) problems.push(`${refOf(configMap)}: ${key} is a secret in a ConfigMap`);
        }
      }
      const secrets = overlay.objects.filter((object) => object.kind === 'Secret');
      if (isProduction(name)) {
        // Created by the operator beforehand (docs/deployment.md), so that nothing secret is in the repository.
        expect(secrets.map(refOf)).toEqual([]);
      } else {
        // secretGenerator output from the git-ignored files: the name carries kustomize's content hash.
        expect(secrets.filter((secret) => !/-[a-z0-9]{10}$/.test(secret.metadata.name)).map(refOf)).toEqual(
          [],
        );
      }
      expect(problems).toEqual([]);
    });

    it('resolves every Secret and ConfigMap reference to an object of the overlay or a documented external one', () => {
      const problems: string[] = [];
      const documented = documentedSecrets();
      const used = new Map<string, Set<string>>();
      for (const workload of overlay.workloads) {
        const note = (secret: string, keys: string[]) => {
          for (const key of keys) used.set(secret, (used.get(secret) ?? new Set()).add(key));
        };
        for (const volume of workload.pod.volumes ?? []) {
          if (volume.secret) {
            const keys = secretKeys(overlay, volume.secret.secretName);
            if (!keys)
              problems.push(`${workload.ref}: volume ${volume.name}: no Secret ${volume.secret.secretName}`);
            for (const item of volume.secret.items ?? []) {
              if (keys && !keys.has(item.key))
                problems.push(`${workload.ref}: Secret ${volume.secret.secretName} has no key ${item.key}`);
            }
            note(
              volume.secret.secretName,
              (volume.secret.items ?? []).map((item) => item.key),
            );
          }
          if (volume.configMap && !find(overlay, 'ConfigMap', volume.configMap.name)) {
            const external = EXTERNAL_CONFIG_MAPS[volume.configMap.name];
            if (external?.overlay !== name || !kubernetesChapter().includes(external.command)) {
              problems.push(
                `${workload.ref}: volume ${volume.name}: no ConfigMap ${volume.configMap.name}, and none documented`,
              );
            }
          }
        }
        for (const container of containersOf(workload.pod)) {
          for (const source of container.envFrom ?? []) {
            if (source.configMapRef && !find(overlay, 'ConfigMap', source.configMapRef.name)) {
              problems.push(`${workload.ref}: envFrom: no ConfigMap ${source.configMapRef.name}`);
            }
            if (source.secretRef)
              problems.push(`${workload.ref}: envFrom a Secret puts secrets in the environment`);
          }
          for (const variable of (container.env ?? []).filter((v) => v.name.endsWith('_FILE'))) {
            const source = mountedFile(workload.pod, container, variable.value ?? '');
            if ('problem' in source) {
              problems.push(`${workload.ref}: ${variable.name}: ${source.problem}`);
            } else if (source.kind === 'Secret') {
              if (!secretKeys(overlay, source.name)?.has(source.key)) {
                problems.push(
                  `${workload.ref}: ${variable.name} reads ${source.name}/${source.key}, which ${isProduction(name) ? 'docs/deployment.md does not list' : 'the overlay does not generate'}`,
                );
              }
              note(source.name, [source.key]);
            }
          }
        }
      }
      if (isProduction(name)) {
        // And the table lists nothing the overlay does not read.
        for (const [secret, keys] of documented) {
          for (const key of keys)
            if (!used.get(secret)?.has(key))
              problems.push(`docs/deployment.md lists ${secret}/${key}, which no workload reads`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('keeps the registry server on the SELECT-only role and gives the migrations the owner', () => {
      const registry = servers.find((s) => appOf(s) === 'registry-api')!;
      const secretOf = (container: Container) => {
        const source = mountedFile(
          registry.pod,
          container,
          effectiveEnv(overlay, container).get('DATABASE_URL_FILE') ?? '',
        );
        return 'problem' in source ? source.problem : source.name;
      };
      const server = mainContainer(registry);
      const migrate = migrateContainer(registry)!;
      expect(secretOf(server)).not.toBe(secretOf(migrate));
      // The owner's Secret is a volume of the pod, but only the init container mounts it.
      expect((server.volumeMounts ?? []).map((mount) => mount.name)).not.toContain(
        migrate.volumeMounts!.find((mount) => mount.mountPath.startsWith('/run/secrets/'))!.name,
      );
      if (name === 'dev') {
        // The generated URLs really are the two roles deploy/postgres/10-databases.sh and the image create.
        expect(secretValue(overlay, secretOf(server), 'database_url')).toMatch(
          /^postgres:\/\/registry_reader:/,
        );
        expect(secretValue(overlay, secretOf(migrate), 'database_url')).toMatch(
          /^postgres:\/\/registry_owner:/,
        );
      } else {
        expect([secretOf(server), secretOf(migrate)]).toEqual(['registry-api', 'registry-owner']);
      }
    });

    it('applies no Job, so a second `kubectl apply -k` never has to change an immutable pod template', () => {
      // A Job's spec.template cannot change once created: the next release's image tag or ConfigMap hash made the
      // apply fail until someone deleted the Job by hand.
      expect(overlay.objects.filter((object) => object.kind === 'Job').map(refOf)).toEqual([]);
    });

    it('runs `node dist/cli.js migrate` as an init container of each server with a database, with only the database URL', () => {
      expect(
        servers
          .filter((server) => migrateContainer(server))
          .map((server) => appOf(server))
          .sort(),
      ).toEqual([...MIGRATING_APPS]);
      for (const app of MIGRATING_APPS) {
        const workload = servers.find((server) => appOf(server) === app)!;
        const job = workload.ref;
        const container = migrateContainer(workload)!;
        expect({
          job,
          initContainers: workload.pod.initContainers!.map((c) => c.name),
          args: container.args,
          env: (container.env ?? []).map((v) => v.name),
          envFrom: container.envFrom,
        }).toEqual({
          job,
          initContainers: ['migrate'],
          args: ['node', 'dist/cli.js', 'migrate'],
          env: ['DATABASE_URL_FILE'],
          envFrom: undefined,
        });
        expect(readFileSync(join(REPO_ROOT, 'apps', app, 'src', 'cli.ts'), 'utf8')).toMatch(/^\s+migrate\s/m);
        // Pods starting together take turns: `migrate` holds an advisory lock while it runs (the CLI's tests start
        // six at once).
        const migrations = app === 'registry-api' ? 'data-source.ts' : 'migrate.ts';
        expect(readFileSync(join(REPO_ROOT, 'apps', app, 'src', 'database', migrations), 'utf8')).toContain(
          'runMigrationsLocked(',
        );
        expect(
          readFileSync(join(REPO_ROOT, 'libs', 'migrations', 'src', 'run-migrations.ts'), 'utf8'),
        ).toContain('SELECT pg_advisory_xact_lock($1)');
        // The CLI reads the URL through the same X_FILE rule; the file holds the URL and nothing else.
        const source = mountedFile(workload.pod, container, container.env![0]!.value!);
        expect({ job, source }).toEqual({
          job,
          source: expect.objectContaining({ kind: 'Secret', key: 'database_url' }) as object,
        });
        const mounted = container.volumeMounts!.find((mount) => mount.mountPath.startsWith('/run/secrets/'))!;
        const volume = workload.pod.volumes!.find((v) => v.name === mounted.name)!;
        if (app === 'ussd-gateway')
          expect(volume.secret!.items).toEqual([{ key: 'database_url', path: 'database_url' }]);
        const file = join(scratch, `${name}-${app}-migrate-url`);
        writeFileSync(
          file,
          secretValue(overlay, (source as { name: string }).name, 'database_url') ??
            sampleSecret('DATABASE_URL')!,
        );
        expect(readVariable(app, 'DATABASE_URL', { DATABASE_URL_FILE: file })).toMatch(/^postgres:\/\//);
      }
    });

    it('probes real routes of each app on its real port: liveness and start-up on /health/live, readiness on /health/ready', () => {
      const problems: string[] = [];
      const served = new Map<string, Set<string>>();
      for (const [app, config] of configs) {
        const entry = APPS[app]!;
        const bootstrap = readFileSync(join(REPO_ROOT, 'apps', app, 'src', 'bootstrap.ts'), 'utf8');
        const prefix = entry.globalPrefix(config as never);
        const exclusions = globalPrefixExclusions(bootstrap);
        if (exclusions === undefined && prefix !== '')
          problems.push(`${app}: a global prefix here, but bootstrap.ts sets none`);
        if (exclusions !== undefined && prefix === '')
          problems.push(`${app}: bootstrap.ts sets a global prefix this test does not apply`);
        served.set(
          app,
          servedGetPaths(
            controllerRoutes(controllersOf(entry.rootModule(config as never))),
            prefix,
            exclusions ?? [],
          ),
        );
      }
      const servedAnywhere = (path: string) => [...served.values()].some((paths) => paths.has(path));
      for (const server of servers) {
        const app = appOf(server)!;
        if (!configs.has(app)) {
          problems.push(
            `${server.ref}: its routes are unknown, for its configuration does not load (see that check)`,
          );
          continue;
        }
        const container = mainContainer(server);
        const port = Number(effectiveEnv(overlay, container).get('PORT') ?? new APPS[app]!.config().PORT);
        const expected = {
          startupProbe: '/health/live',
          livenessProbe: '/health/live',
          readinessProbe: '/health/ready',
        } as const;
        for (const [kind, path] of Object.entries(expected) as Array<[keyof typeof expected, string]>) {
          const probe = container[kind]?.httpGet;
          if (!probe) {
            problems.push(`${server.ref}: no ${kind} over HTTP`);
            continue;
          }
          if (probe.path !== path) problems.push(`${server.ref}: ${kind} asks ${probe.path}, not ${path}`);
          const awaited = AWAITED_ROUTES.includes(probe.path ?? '') && !servedAnywhere(probe.path ?? '');
          if (!served.get(app)?.has(probe.path ?? '') && !awaited) {
            problems.push(
              `${server.ref}: ${kind} asks GET ${probe.path}, which ${app} does not serve (routes: ${[...(served.get(app) ?? [])].filter((p) => p.includes('health')).join(', ')})`,
            );
          }
          if (resolvePort(container, probe.port) !== port) {
            problems.push(
              `${server.ref}: ${kind} asks port ${probe.port}, but the app listens on PORT ${port}`,
            );
          }
        }
        // A start-up probe that gives up before the readiness probe has had a chance is a restart loop.
        const startup = container.startupProbe;
        if (startup && (startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3) < 30) {
          problems.push(`${server.ref}: the start-up probe allows less than 30 s to start`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('serves metrics on the metrics port METRICS_PORT names, and the HTTP port PORT names', () => {
      const problems: string[] = [];
      for (const server of servers) {
        const container = mainContainer(server);
        const env = effectiveEnv(overlay, container);
        const port = Number(env.get('PORT') ?? new APPS[appOf(server)!]!.config().PORT);
        if (resolvePort(container, 'http') !== port)
          problems.push(`${server.ref}: port http is not PORT ${port}`);
        if (
          resolvePort(container, 'metrics') === undefined ||
          resolvePort(container, 'metrics') !== Number(env.get('METRICS_PORT'))
        ) {
          problems.push(
            `${server.ref}: port metrics (${resolvePort(container, 'metrics')}) is not METRICS_PORT (${env.get('METRICS_PORT')})`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('lets every server finish in-flight requests: terminationGracePeriodSeconds > preStop sleep + SHUTDOWN_GRACE_MS', () => {
      const problems: string[] = [];
      for (const server of servers) {
        const container = mainContainer(server);
        const graceMs = Number(
          effectiveEnv(overlay, container).get('SHUTDOWN_GRACE_MS') ??
            new BaseServiceConfig().SHUTDOWN_GRACE_MS,
        );
        const preStop = container.lifecycle?.preStop?.sleep?.seconds ?? 0;
        const period = server.pod.terminationGracePeriodSeconds ?? 30;
        if (preStop <= 0)
          problems.push(`${server.ref}: no preStop sleep; the endpoint may still get traffic after SIGTERM`);
        if (!(period > preStop + graceMs / 1000)) {
          problems.push(
            `${server.ref}: terminationGracePeriodSeconds ${period} <= preStop ${preStop} s + SHUTDOWN_GRACE_MS ${graceMs} ms`,
          );
        }
      }
      expect(problems).toEqual([]);
    });

    it('scales Deployments that exist, by CPU they request, with disruption budgets a drain can satisfy', () => {
      const problems: string[] = [];
      for (const hpa of overlay.objects.filter((object) => object.kind === 'HorizontalPodAutoscaler')) {
        const spec = hpa.spec as {
          scaleTargetRef: { apiVersion: string; kind: string; name: string };
          minReplicas: number;
          maxReplicas: number;
          metrics: Array<{ type: string; resource?: { name: string } }>;
        };
        const target = overlay.workloads.find(
          (w) =>
            w.object.kind === spec.scaleTargetRef.kind &&
            w.object.apiVersion === spec.scaleTargetRef.apiVersion &&
            w.object.metadata.name === spec.scaleTargetRef.name,
        );
        if (!target) {
          problems.push(
            `${refOf(hpa)}: scales ${spec.scaleTargetRef.kind}/${spec.scaleTargetRef.name}, which the overlay does not have`,
          );
          continue;
        }
        if ((target.object.spec as { replicas?: number }).replicas !== undefined) {
          problems.push(`${target.ref}: sets replicas, which every apply would reset under ${refOf(hpa)}`);
        }
        for (const metric of spec.metrics.filter((m) => m.type === 'Resource')) {
          for (const container of target.pod.containers) {
            if (container.resources?.requests?.[metric.resource!.name] === undefined) {
              problems.push(
                `${target.ref}: container ${container.name} requests no ${metric.resource!.name}, so ${refOf(hpa)} cannot compute utilisation`,
              );
            }
          }
        }
        const pdbs = overlay.objects.filter(
          (o) =>
            o.kind === 'PodDisruptionBudget' &&
            selects((o.spec as { selector: LabelSelector }).selector, target.labels),
        );
        if (pdbs.length !== 1)
          problems.push(`${target.ref}: ${pdbs.length} PodDisruptionBudgets select its pods, not 1`);
        for (const pdb of pdbs) {
          const minAvailable = (pdb.spec as { minAvailable?: number }).minAvailable;
          if (minAvailable !== undefined && minAvailable >= spec.minReplicas) {
            problems.push(
              `${refOf(pdb)}: minAvailable ${minAvailable} >= ${refOf(hpa)} minReplicas ${spec.minReplicas}: a drain could never evict`,
            );
          }
        }
        if (appOf(target) === 'ussd-gateway' && spec.maxReplicas > 1) {
          const env = effectiveEnv(overlay, mainContainer(target));
          const shared = ['REDIS_URL', 'REDIS_CLUSTER_NODES', 'REDIS_SENTINELS'];
          if (!shared.some((name) => env.has(name) || env.has(`${name}_FILE`))) {
            problems.push(
              `${target.ref}: up to ${spec.maxReplicas} pods without REDIS_URL, REDIS_CLUSTER_NODES or REDIS_SENTINELS: sessions would live in one pod each`,
            );
          }
        }
      }
      for (const pdb of overlay.objects.filter((object) => object.kind === 'PodDisruptionBudget')) {
        const selected = workloadsSelectedBy(overlay, (pdb.spec as { selector: LabelSelector }).selector);
        if (selected.length !== 1 || selected[0]!.object.kind !== 'Deployment') {
          problems.push(
            `${refOf(pdb)}: selects ${selected.map((w) => w.ref).join(', ') || 'no pod'}, not one Deployment's pods`,
          );
        }
      }
      for (const server of servers) {
        for (const constraint of server.pod.topologySpreadConstraints ?? []) {
          if (!selects(constraint.labelSelector, server.labels))
            problems.push(`${server.ref}: a topology spread constraint does not select its own pods`);
        }
      }
      expect(problems).toEqual([]);
    });

    it('selects pods and ports that exist in every NetworkPolicy, behind a default deny', () => {
      const problems: string[] = [];
      const policies = overlay.objects.filter((object) => object.kind === 'NetworkPolicy');
      const denyAll = policies.filter((p) => {
        const spec = p.spec as { podSelector: LabelSelector; policyTypes?: string[]; ingress?: unknown[] };
        return (
          Object.keys(spec.podSelector).length === 0 &&
          spec.policyTypes?.includes('Ingress') &&
          (spec.ingress ?? []).length === 0
        );
      });
      if (denyAll.length !== 1) problems.push(`${denyAll.length} default-deny ingress policies, not 1`);
      for (const policy of policies.filter((p) => !denyAll.includes(p))) {
        const spec = policy.spec as {
          podSelector: LabelSelector;
          ingress?: Array<{
            from?: Array<{ podSelector?: LabelSelector; namespaceSelector?: LabelSelector }>;
            ports?: Array<{ port: number | string }>;
          }>;
        };
        const selected = workloadsSelectedBy(overlay, spec.podSelector);
        if (selected.length === 0) problems.push(`${refOf(policy)}: selects no pod`);
        for (const rule of spec.ingress ?? []) {
          if (!rule.from || rule.from.length === 0)
            problems.push(`${refOf(policy)}: a rule admits every source`);
          if (!rule.ports || rule.ports.length === 0)
            problems.push(`${refOf(policy)}: a rule admits every port`);
          for (const port of rule.ports ?? []) {
            for (const workload of selected) {
              if (
                !workload.pod.containers.some((container) => resolvePort(container, port.port) !== undefined)
              ) {
                problems.push(`${refOf(policy)}: port ${port.port} is not a port of ${workload.ref}`);
              }
            }
          }
          for (const peer of rule.from ?? []) {
            if (
              peer.podSelector &&
              !peer.namespaceSelector &&
              workloadsSelectedBy(overlay, peer.podSelector).length === 0
            ) {
              problems.push(
                `${refOf(policy)}: admits pods ${JSON.stringify(peer.podSelector)}, which the overlay does not run`,
              );
            }
          }
        }
      }
      expect(problems).toEqual([]);
    });

    it('admits each service’s HTTP port from the ingress namespace only, and its metrics port from Prometheus only, both named in platform.env', () => {
      // By the label Kubernetes sets on every namespace: nothing for an operator to label by hand.
      const platform = platformOf(name);
      const ingressNamespace = { 'kubernetes.io/metadata.name': platform.INGRESS_NAMESPACE };
      const monitoringNamespace = { 'kubernetes.io/metadata.name': platform.MONITORING_NAMESPACE };
      expect([platform.INGRESS_NAMESPACE, platform.MONITORING_NAMESPACE]).toEqual([
        expect.stringMatching(/^[a-z0-9-]+$/),
        expect.stringMatching(/^[a-z0-9-]+$/),
      ]);
      const policies = overlay.objects.filter((object) => object.kind === 'NetworkPolicy');
      for (const server of servers) {
        const rules = policies
          .filter((policy) =>
            selects((policy.spec as { podSelector: LabelSelector }).podSelector, server.labels),
          )
          .flatMap(
            (policy) =>
              (
                policy.spec as {
                  ingress?: Array<{ from?: unknown[]; ports?: Array<{ port: unknown; protocol?: string }> }>;
                }
              ).ingress ?? [],
          );
        expect({ server: server.ref, rules }).toEqual({
          server: server.ref,
          rules: [
            {
              from: [{ namespaceSelector: { matchLabels: ingressNamespace } }],
              ports: [{ port: 'http', protocol: 'TCP' }],
            },
            {
              from: [
                {
                  namespaceSelector: { matchLabels: monitoringNamespace },
                  podSelector: { matchLabels: PROMETHEUS_POD },
                },
              ],
              ports: [{ port: 'metrics', protocol: 'TCP' }],
            },
          ],
        });
      }
      expect(kubernetesChapter()).toContain('INGRESS_NAMESPACE');
      expect(kubernetesChapter()).toContain('MONITORING_NAMESPACE');
    });

    it('lets each service’s pods, migrations included, reach only DNS, the tracing collector and their own dependencies', () => {
      interface EgressRule {
        to?: Array<{ namespaceSelector?: LabelSelector; podSelector?: LabelSelector; ipBlock?: unknown }>;
        ports?: Array<{ port: number; protocol: string }>;
      }
      const egressPolicies = overlay.objects.filter(
        (object) =>
          object.kind === 'NetworkPolicy' &&
          ((object.spec as { policyTypes?: string[] }).policyTypes ?? []).includes('Egress'),
      );
      const expected: Record<string, number[]> = {
        'registry-api': [5432],
        'ussd-gateway': [5432, 6379, 6380, 26379],
        'protocol-gateway': [9090],
      };
      for (const workload of overlay.workloads.filter((candidate) => appOf(candidate) !== undefined)) {
        const app = appOf(workload)!;
        const rules = egressPolicies
          .filter((policy) =>
            selects((policy.spec as { podSelector: LabelSelector }).podSelector, workload.labels),
          )
          .flatMap((policy) => (policy.spec as { egress?: EgressRule[] }).egress ?? []);
        expect({ workload: workload.ref, selected: rules.length > 0 }).toEqual({
          workload: workload.ref,
          selected: true,
        });
        // DNS only to the cluster's DNS pods; every other rule names its ports (no rule opens everything).
        const dns = rules.filter((rule) => rule.ports?.some(({ port }) => port === 53));
        expect({ workload: workload.ref, dns }).toEqual({
          workload: workload.ref,
          dns: [
            {
              to: [
                {
                  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
                  podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } },
                },
              ],
              ports: [
                { port: 53, protocol: 'UDP' },
                { port: 53, protocol: 'TCP' },
              ],
            },
          ],
        });
        const ports = rules
          .filter((rule) => !dns.includes(rule))
          .flatMap((rule) => {
            expect({ workload: workload.ref, ports: (rule.ports ?? []).length > 0 }).toEqual({
              workload: workload.ref,
              ports: true,
            });
            return (rule.ports ?? []).map(({ port, protocol }) => `${port}/${protocol}`);
          });
        expect({ workload: workload.ref, ports: ports.sort() }).toEqual({
          workload: workload.ref,
          ports: [...expected[app]!, 4318].map((port) => `${port}/TCP`).sort(),
        });
      }
      // The endpoints this overlay configures are on allowed ports: the database and Redis URLs of its Secrets (or the
      // documented samples), the chain node's GRPC_UPSTREAM.
      for (const [app, config] of configs) {
        const urls = [
          (config as unknown as { DATABASE_URL?: string }).DATABASE_URL,
          (config as unknown as { REDIS_URL?: string }).REDIS_URL,
        ].filter((url): url is string => url !== undefined);
        const upstreams = (config as unknown as { GRPC_UPSTREAM?: string[] }).GRPC_UPSTREAM ?? [];
        const used = [
          ...urls.map((url) => Number(new URL(url).port || (url.startsWith('postgres') ? 5432 : 6379))),
          ...upstreams.map((upstream) => Number(upstream.split(':').pop())),
        ];
        for (const port of used)
          expect({ app, port, allowed: expected[app]!.includes(port) }).toEqual({ app, port, allowed: true });
      }
    });

    if (name === 'dev') {
      it('runs Redis with passwords only its Secret holds (as SHA-256), and gives the gateway its own user’s URL', () => {
        const redis = overlay.workloads.find(({ ref }) => ref === 'Deployment/redis')!;
        const container = mainContainer(redis);
        const aclIndex = container.args!.indexOf('--aclfile');
        expect(aclIndex).toBeGreaterThan(0);
        const acl = mountedFile(redis.pod, container, container.args![aclIndex + 1]!);
        expect(acl).toEqual({
          kind: 'Secret',
          name: expect.stringMatching(/^redis-/) as string,
          key: 'users_acl',
        });
        const secret = (acl as { name: string }).name;
        const password = secretValue(overlay, secret, 'password')!.trim();
        expect(password).toMatch(/^[0-9a-f]{48}$/);
        const hash = createHash('sha256').update(password).digest('hex');
        // `default` (the probe) may PING and read INFO only; the gateway has a user of its own.
        const users = secretValue(overlay, secret, 'users_acl')!.trim().split('\n');
        expect(users[0]).toBe(`user default on #${hash} resetkeys resetchannels -@all +ping +info`);
        expect(users[1]).toMatch(
          /^user ussd-gateway on #[0-9a-f]{64} resetkeys ~ussd:\* resetchannels -@all \+/,
        );
        // The readiness probe authenticates from the mounted file, never from an argument.
        expect(container.readinessProbe?.exec?.command.join(' ')).toContain(
          'REDISCLI_AUTH="$(cat /run/secrets/redis/password)"',
        );
        const url = new URL((configs.get('ussd-gateway') as unknown as { REDIS_URL: string }).REDIS_URL);
        expect(url).toMatchObject({ username: 'ussd-gateway', hostname: 'redis', port: '6379' });
        expect(users[1]).toContain(`#${createHash('sha256').update(url.password).digest('hex')} `);
        expect(
          effectiveEnv(
            overlay,
            mainContainer(overlay.workloads.find(({ ref }) => ref === 'Deployment/ussd-gateway')!),
          ).get('REDIS_URL'),
        ).toBeUndefined();
      });
    }

    if (name === 'production-monitoring') {
      it('scrapes each service’s metrics port at /metrics with a ServiceMonitor that selects its Service', () => {
        const problems: string[] = [];
        for (const monitor of overlay.objects.filter((object) => object.kind === 'ServiceMonitor')) {
          const spec = monitor.spec as {
            selector: LabelSelector;
            endpoints: Array<{ port?: string; path?: string }>;
          };
          const services = overlay.objects.filter(
            (o) => o.kind === 'Service' && selects(spec.selector, o.metadata.labels ?? {}),
          );
          if (services.length !== 1)
            problems.push(`${refOf(monitor)}: selects ${services.length} Services, not 1`);
          for (const service of services) {
            const ports = (
              service.spec as {
                ports: Array<{ name: string; targetPort: string | number }>;
                selector: Record<string, string>;
              }
            ).ports;
            for (const endpoint of spec.endpoints) {
              const port = ports.find((p) => p.name === endpoint.port);
              if (!port) problems.push(`${refOf(monitor)}: ${refOf(service)} has no port ${endpoint.port}`);
              if (endpoint.path !== '/metrics')
                problems.push(`${refOf(monitor)}: scrapes ${endpoint.path}, not /metrics`);
              const server = workloadsSelectedBy(overlay, {
                matchLabels: (service.spec as { selector: Record<string, string> }).selector,
              })[0];
              const container = server && mainContainer(server);
              if (
                port &&
                container &&
                resolvePort(container, port.targetPort) !==
                  Number(effectiveEnv(overlay, container).get('METRICS_PORT'))
              ) {
                problems.push(
                  `${refOf(monitor)}: ${refOf(service)} port ${port.name} does not reach METRICS_PORT of ${server.ref}`,
                );
              }
            }
          }
        }
        expect(problems).toEqual([]);
      });

      it('opens the PostgreSQL connections docs/deployment.md budgets, at maxReplicas and during a rollout', () => {
        const row = (app: string) =>
          kubernetesChapter()
            .split('\n')
            .find((line) => line.startsWith(`| ${app} | up to \`DATABASE_POOL_SIZE\``))
            ?.split('|')
            .map((cell) => cell.trim());
        for (const [app, listeners] of [
          ['registry-api', 1],
          ['ussd-gateway', 0],
        ] as const) {
          const server = servers.find((s) => appOf(s) === app)!;
          const maxReplicas = (find(overlay, 'HorizontalPodAutoscaler', app)!.spec as { maxReplicas: number })
            .maxReplicas;
          const surge = (server.object.spec as { strategy: { rollingUpdate: { maxSurge: string } } }).strategy
            .rollingUpdate.maxSurge;
          const surged = maxReplicas + Math.ceil((maxReplicas * Number(surge.replace('%', ''))) / 100);
          const pool = Number(effectiveEnv(overlay, mainContainer(server)).get('DATABASE_POOL_SIZE'));
          const perPod = pool + listeners;
          expect({ app, total: row(app)?.[4]?.split(';')[0] }).toEqual({
            app,
            total: `${maxReplicas * perPod} (${surged * perPod})`,
          });
        }
      });

      it('runs at least three pods per service, spread over zones and nodes, with requests equal to limits', () => {
        for (const server of servers) {
          const hpa = find(overlay, 'HorizontalPodAutoscaler', server.object.metadata.name)!;
          const resources = mainContainer(server).resources!;
          expect({
            server: server.ref,
            minReplicas: (hpa.spec as { minReplicas: number }).minReplicas >= 3,
            topologyKeys: (server.pod.topologySpreadConstraints as Array<{ topologyKey: string }>).map(
              (c) => c.topologyKey,
            ),
            guaranteed: JSON.stringify(resources.requests) === JSON.stringify(resources.limits),
          }).toEqual({
            server: server.ref,
            minReplicas: true,
            topologyKeys: ['topology.kubernetes.io/zone', 'kubernetes.io/hostname'],
            guaranteed: true,
          });
        }
      });
    }
  });

  describe('monitoring', () => {
    const rule = overlays
      .get('production-monitoring')!
      .objects.find((object) => object.kind === 'PrometheusRule')!;
    const dashboard = JSON.parse(
      readFileSync(join(KUBERNETES_DIR, 'monitoring', 'grafana-dashboard.json'), 'utf8'),
    ) as {
      uid: string;
      templating: { list: Array<{ name: string }> };
      panels: Array<{
        id: number;
        type: string;
        title: string;
        gridPos?: object;
        targets?: Array<{ expr: string }>;
        datasource?: { uid: string };
      }>;
    };
    const alerts = (
      rule.spec as {
        groups: Array<{
          rules: Array<{
            alert: string;
            expr: string;
            labels?: Record<string, string>;
            annotations?: Record<string, string>;
          }>;
        }>;
      }
    ).groups.flatMap((g) => g.rules);
    const documented = documentedMetrics();
    const undocumented = (expression: string) =>
      metricNames(expression).filter(
        (metric) => !documented.has(metric) && !documented.has(metric.replace(/_(bucket|sum|count)$/, '')),
      );

    it('alerts only on metric families docs/deployment.md lists, each alert with a severity and a summary', () => {
      expect(alerts.length).toBeGreaterThanOrEqual(5);
      expect(alerts.flatMap((a) => undocumented(a.expr).map((metric) => `${a.alert}: ${metric}`))).toEqual(
        [],
      );
      expect(
        alerts.filter((a) => !a.labels?.severity || !a.annotations?.summary).map((a) => a.alert),
      ).toEqual([]);
      expect(documented).toEqual(expect.objectContaining({ size: expect.any(Number) as number }));
      expect([...documented].filter((metric) => metric.startsWith('dmrv_')).length).toBeGreaterThanOrEqual(6);
    });

    it('links every alert to its runbook: what it means, what users see, the first three commands, when it is over', () => {
      const runbooks = join(REPO_ROOT, 'docs', 'runbooks');
      const sections = [
        '## What it means',
        '## What subscribers and integrators see meanwhile',
        '## First three commands',
        '## It is over when',
      ];
      const problems: string[] = [];
      for (const { alert, annotations } of alerts) {
        const url = annotations?.runbook_url ?? '';
        if (url !== `${RUNBOOK_BASE}${alert}.md`) problems.push(`${alert}: runbook_url ${url || 'missing'}`);
        const file = join(runbooks, `${alert}.md`);
        if (!existsSync(file)) {
          problems.push(`${alert}: no docs/runbooks/${alert}.md`);
          continue;
        }
        const text = readFileSync(file, 'utf8');
        if (!text.startsWith(`# ${alert}\n`))
          problems.push(`${alert}: the runbook's title is not the alert's name`);
        const at = sections.map((section) => text.indexOf(`\n${section}\n`));
        if (at.some((index) => index === -1) || at.some((index, i) => i > 0 && index < at[i - 1]!))
          problems.push(`${alert}: the runbook lacks or reorders ${sections.join(', ')}`);
        const commands = /## First three commands\n```sh\n([\s\S]*?)```/.exec(text)?.[1] ?? '';
        if (commands.trim().split('\n').length !== 3) problems.push(`${alert}: not three commands`);
        if (!readFileSync(join(runbooks, 'README.md'), 'utf8').includes(`[${alert}](${alert}.md)`))
          problems.push(`${alert}: not in docs/runbooks/README.md`);
      }
      const named = new Set(alerts.map(({ alert }) => `${alert}.md`));
      for (const file of readdirSync(runbooks))
        if (file !== 'README.md' && !named.has(file)) problems.push(`docs/runbooks/${file}: no such alert`);
      expect(problems).toEqual([]);
    });

    it('charts the main signals in a Grafana dashboard that reads only documented metric families', () => {
      const charts = dashboard.panels.filter((panel) => panel.type !== 'row');
      const expressions = charts.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr));
      expect(
        charts.flatMap((panel) =>
          (panel.targets ?? []).flatMap((t) => undocumented(t.expr).map((m) => `${panel.title}: ${m}`)),
        ),
      ).toEqual([]);
      for (const family of [
        'dmrv_http_requests_total',
        'dmrv_http_request_duration_seconds_bucket',
        'dmrv_ussd_hops_total',
        'dmrv_ussd_pin_lockouts_total',
        'dmrv_registry_cache_requests_total',
        'dmrv_protocol_upstream_calls_total',
        'nodejs_eventloop_lag_p99_seconds',
      ]) {
        expect({
          family,
          charted: expressions.some((expression) => metricNames(expression).includes(family)),
        }).toEqual({ family, charted: true });
      }
      expect(new Set(dashboard.panels.map((panel) => panel.id)).size).toBe(dashboard.panels.length);
      expect(dashboard.panels.filter((panel) => !panel.gridPos).map((panel) => panel.title)).toEqual([]);
      expect(
        charts.filter((panel) => panel.datasource?.uid !== '${datasource}').map((panel) => panel.title),
      ).toEqual([]);
      expect(dashboard.templating.list.map((variable) => variable.name)).toEqual(['datasource', 'namespace']);
      // Shipped to Grafana's dashboard sidecar by the production overlay.
      const configMap = find(overlays.get('production-monitoring')!, 'ConfigMap', 'dmrv-grafana-dashboard')!;
      expect(configMap.metadata.labels).toEqual(expect.objectContaining({ grafana_dashboard: '1' }));
      expect(JSON.parse(configMap.data!['dmrv.json']!)).toEqual(dashboard);
    });
  });

  it('documents a registry CLI pod that the production namespace admits, with the owner Secret the migrations use', () => {
    const overrides = /--overrides='([^']*)'/.exec(kubernetesChapter())?.[1];
    expect(overrides).toBeDefined();
    const production = overlays.get('production')!;
    const registry = production.workloads.find(
      (w) => w.object.kind === 'Deployment' && appOf(w) === 'registry-api',
    )!;
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'registry-cli' },
      ...(JSON.parse(overrides!) as object),
    } as K8sObject;
    const workload: Workload = {
      object: pod,
      ref: 'documented Pod/registry-cli',
      labels: {},
      pod: pod.spec as unknown as Workload['pod'],
    };
    expect([
      ...schemaProblems([pod]),
      ...unknownFieldProblems([pod]),
      ...podSecurityProblems(workload),
    ]).toEqual([]);
    const cli = mainContainer(workload);
    const job = migrateContainer(registry)!;
    expect({
      image: cli.image,
      env: cli.env,
      secret: mountedFile(workload.pod, cli, cli.env![0]!.value!),
    }).toEqual({
      image: job.image,
      env: job.env,
      secret: mountedFile(registry.pod, job, job.env![0]!.value!),
    });
    expect(kubernetesChapter()).toContain(`--image=${job.image} `);
    expect(cli.args!.slice(0, 4)).toEqual(['node', 'dist/cli.js', 'clients', 'create']);
    expect(readFileSync(join(REPO_ROOT, 'apps', 'registry-api', 'src', 'cli.ts'), 'utf8')).toContain(
      'clients create --name NAME',
    );
  }, 60_000);

  it('renders production without the Prometheus Operator: Kubernetes’ own kinds only, no CRD’s; production-monitoring adds them', () => {
    const production = overlays.get('production')!;
    expect(production.objects.filter((object) => !isBuiltInKind(object)).map(refOf)).toEqual([]);
    const refs = (overlay: Overlay) =>
      overlay.objects.map((object) => `${object.apiVersion} ${refOf(object)}`);
    const added = refs(overlays.get('production-monitoring')!).filter(
      (ref) => !refs(production).includes(ref),
    );
    expect(added.sort()).toEqual(
      [
        'monitoring.coreos.com/v1 PrometheusRule/dmrv',
        'monitoring.coreos.com/v1 ServiceMonitor/protocol-gateway',
        'monitoring.coreos.com/v1 ServiceMonitor/registry-api',
        'monitoring.coreos.com/v1 ServiceMonitor/ussd-gateway',
        'v1 ConfigMap/dmrv-grafana-dashboard',
      ].sort(),
    );
    expect(
      refs(production).filter((ref) => !refs(overlays.get('production-monitoring')!).includes(ref)),
    ).toEqual([]);
    expect(kubernetesChapter()).toContain(
      'kubectl apply -k deploy/kubernetes/overlays/production-monitoring',
    );
  });

  it('takes the namespaces, hosts and IngressClass from platform.env alone', () => {
    const scratchTree = mkdtempSync(join(tmpdir(), 'dmrv-platform-'));
    try {
      const copy = join(scratchTree, 'kubernetes');
      cpSync(KUBERNETES_DIR, copy, { recursive: true });
      writeFileSync(
        join(copy, 'overlays', 'production', 'platform.env'),
        [
          'INGRESS_NAMESPACE=edge',
          'MONITORING_NAMESPACE=observability',
          'INGRESS_CLASS=traefik',
          'REGISTRY_API_HOST=registry.energy.example',
          'PROTOCOL_GATEWAY_HOST=chain.energy.example',
          'USSD_GATEWAY_HOST=ussd.energy.example',
          '',
        ].join('\n'),
      );
      const rendered = execFileSync('kubectl', ['kustomize', join(copy, 'overlays', 'production')], {
        encoding: 'utf8',
      });
      const objects = rendered.split(/^---$/m).map((document) => parse(document) as K8sObject);
      const selectors = objects
        .filter((object) => object.kind === 'NetworkPolicy' && APP_NAMES.includes(object.metadata.name))
        .flatMap((policy) =>
          (
            policy.spec as { ingress: Array<{ from: Array<{ namespaceSelector: LabelSelector }> }> }
          ).ingress.map(
            (rule) => rule.from[0]!.namespaceSelector.matchLabels!['kubernetes.io/metadata.name'],
          ),
        );
      expect(selectors).toEqual(['edge', 'observability', 'edge', 'observability', 'edge', 'observability']);
      expect(
        objects
          .filter((object) => object.kind === 'Ingress')
          .map((object) => {
            const spec = object.spec as {
              ingressClassName: string;
              rules: Array<{ host: string }>;
              tls: Array<{ hosts: string[] }>;
            };
            return `${object.metadata.name} ${spec.ingressClassName} ${spec.rules[0]!.host} ${spec.tls[0]!.hosts[0]}`;
          })
          .sort(),
      ).toEqual([
        'protocol-gateway traefik chain.energy.example chain.energy.example',
        'registry-api traefik registry.energy.example registry.energy.example',
        'ussd-gateway traefik ussd.energy.example ussd.energy.example',
      ]);
    } finally {
      rmSync(scratchTree, { recursive: true, force: true });
    }
  });

  it('keeps the dev overlay’s secret files out of git', () => {
    const ignored = (path: string) => {
      try {
        execFileSync('git', ['check-ignore', '-q', path], { cwd: REPO_ROOT });
        return true;
      } catch {
        return false;
      }
    };
    const kustomization = parse(
      readFileSync(join(KUBERNETES_DIR, 'overlays', 'dev', 'kustomization.yaml'), 'utf8'),
    ) as {
      secretGenerator: Array<{ files: string[] }>;
    };
    const files = kustomization.secretGenerator.flatMap((generator) =>
      generator.files.map((entry) => entry.split('=').pop()!),
    );
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((file) => !ignored(`deploy/kubernetes/overlays/dev/${file}`))).toEqual([]);
    expect(kubernetesChapter()).toContain('deploy/compose-secrets.sh deploy/kubernetes/overlays/dev/secrets');
  });
});
