import { isAbsolute, join } from 'node:path';
import { parse } from 'yaml';
import { podman, podmanOk, until } from './podman';

// docker-compose.yml run with podman's own commands. Debian's podman-compose (1.0.3) starts services in dependency
// order but ignores what the file relies on: `profiles` (it would start the operator CLI and the local chain node
// every time), `depends_on` conditions (nothing waits for a healthy PostgreSQL or for the migrations to complete) and
// `required: false`. So each service becomes one `podman run`, with the flags Docker Compose would give it, and the
// conditions are awaited here. Only the keys docker-compose.yml uses are understood; any other key fails the run
// (translate() below), so a new key cannot be silently ignored.

interface Service {
  image: string;
  build?: unknown;
  profiles?: string[];
  command?: string[];
  entrypoint?: string[];
  environment?: Record<string, string | number>;
  secrets?: string[];
  volumes?: string[];
  ports?: string[];
  healthcheck?: {
    test: string[];
    interval?: string;
    timeout?: string;
    retries?: number;
    start_period?: string;
  };
  depends_on?: Record<string, { condition: string; required?: boolean }>;
  cap_drop?: string[];
  security_opt?: string[];
  read_only?: boolean;
  tmpfs?: string[];
  restart?: string;
  stop_grace_period?: string;
}

interface ComposeFile {
  services: Record<string, Service>;
  secrets: Record<string, { file: string }>;
  volumes?: Record<string, unknown>;
}

const KNOWN_KEYS = new Set([
  'image',
  'build',
  'profiles',
  'command',
  'entrypoint',
  'environment',
  'secrets',
  'volumes',
  'ports',
  'healthcheck',
  'depends_on',
  'cap_drop',
  'security_opt',
  'read_only',
  'tmpfs',
  'restart',
  'stop_grace_period',
]);

/** Compose's variable syntax: `$$`, `${VAR}`, `${VAR:-default}`, `${VAR-default}`, `${VAR:?message}`. */
export function interpolate(text: string, env: Record<string, string | undefined>): string {
  return text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (match, name?: string, colon?: string, kind?: string, rest?: string) => {
      if (match === '$$') return '$';
      const value = env[name!];
      const missing = value === undefined || (colon === ':' && value === '');
      if (kind === '-') return missing ? rest! : value!;
      if (kind === '?') {
        if (missing) throw new Error(`${name}: ${rest}`);
        return value!;
      }
      return value ?? '';
    },
  );
}

function interpolateDeep<T>(value: T, env: Record<string, string | undefined>): T {
  if (typeof value === 'string') return interpolate(value, env) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => interpolateDeep(item, env)) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, interpolateDeep(item as unknown, env)]),
    ) as T;
  return value;
}

function seconds(duration: string | undefined): number | undefined {
  if (duration === undefined) return undefined;
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`unsupported duration ${duration}`);
  const amount = Number(match[1]);
  return match[2] === 'ms' ? amount / 1000 : match[2] === 'm' ? amount * 60 : amount;
}

export interface ComposeProject {
  /** Prefix of every container, network and volume name; also their label's value. */
  name: string;
  label: string;
  /** Where the file's relative paths (bind mounts) resolve. */
  root: string;
  /** Where its secrets' relative paths resolve (the run's own secrets/, written by deploy/compose-secrets.sh). */
  secretsRoot: string;
  file: ComposeFile;
  profiles: string[];
  /** Image names the file uses, replaced by local ones (the third-party images no CI machine can pull). */
  images: Record<string, string>;
}

export function loadCompose(
  raw: string,
  options: Omit<ComposeProject, 'file'> & { env: Record<string, string | undefined> },
): ComposeProject {
  const file = interpolateDeep(parse(raw, { merge: true }) as ComposeFile, options.env);
  for (const [name, service] of Object.entries(file.services)) {
    const unknown = Object.keys(service).filter((key) => !KNOWN_KEYS.has(key));
    if (unknown.length > 0)
      throw new Error(`${name}: compose keys this runner does not translate: ${unknown.join(', ')}`);
  }
  return { ...options, file };
}

export const containerName = (project: ComposeProject, service: string): string =>
  `${project.name}-${service}`;

function active(project: ComposeProject, service: string): boolean {
  const profiles = project.file.services[service]?.profiles;
  return profiles === undefined || profiles.some((profile) => project.profiles.includes(profile));
}

/** The `podman run` arguments Docker Compose's container for `service` would have (without the command). */
export function runArguments(project: ComposeProject, service: string, detached: boolean): string[] {
  const definition = project.file.services[service]!;
  const args = [
    'run',
    '--label',
    `${project.label}=${project.name}`,
    '--network',
    project.name,
    '--network-alias',
    service,
  ];
  args.push(detached ? '--detach' : '--rm');
  if (detached) args.push('--name', containerName(project, service));
  for (const [name, value] of Object.entries(definition.environment ?? {}))
    args.push('--env', `${name}=${value}`);
  for (const secret of definition.secrets ?? []) {
    const source = project.file.secrets[secret]!.file;
    args.push('--volume', `${join(project.secretsRoot, source)}:/run/secrets/${secret}:ro`);
  }
  for (const volume of definition.volumes ?? []) {
    const [source, target, mode] = volume.split(':');
    const host =
      source!.startsWith('.') || isAbsolute(source!)
        ? join(project.root, source!)
        : `${project.name}-${source}`;
    args.push('--volume', [host, target, mode].filter(Boolean).join(':'));
  }
  // Docker reads host port 0 as "any free port"; podman 4.3 refuses 0 and spells it as an empty host port.
  for (const port of definition.ports ?? []) args.push('--publish', port.replace(/^(.*):0:(\d+)$/, '$1::$2'));
  const health = definition.healthcheck;
  if (health) {
    const [kind, ...command] = health.test;
    args.push('--health-cmd', kind === 'CMD-SHELL' ? command.join(' ') : JSON.stringify(command));
    if (health.interval) args.push('--health-interval', health.interval);
    if (health.timeout) args.push('--health-timeout', health.timeout);
    if (health.retries !== undefined) args.push('--health-retries', String(health.retries));
    if (health.start_period) args.push('--health-start-period', health.start_period);
  }
  for (const capability of definition.cap_drop ?? []) args.push('--cap-drop', capability);
  for (const option of definition.security_opt ?? [])
    args.push('--security-opt', option.replace(/:true$/, ''));
  // Docker's read_only leaves writable only what the file mounts; podman would add tmpfs on /run, /tmp, /var/tmp.
  if (definition.read_only) args.push('--read-only', '--read-only-tmpfs=false');
  for (const path of definition.tmpfs ?? []) args.push('--tmpfs', path);
  if (definition.restart && detached)
    args.push('--restart', definition.restart === 'unless-stopped' ? 'unless-stopped' : 'no');
  const grace = seconds(definition.stop_grace_period);
  // Compose's default stop timeout is 10 s, podman's too; stated so the drain check knows what it is held to.
  args.push('--stop-timeout', String(grace ?? 10));
  if (definition.entrypoint) args.push('--entrypoint', JSON.stringify(definition.entrypoint));
  args.push(project.images[definition.image] ?? definition.image);
  return args;
}

export function stopTimeoutSeconds(project: ComposeProject, service: string): number {
  return seconds(project.file.services[service]!.stop_grace_period) ?? 10;
}

/** Services `up` starts, in an order where each comes after what it depends on. */
export function startOrder(project: ComposeProject): string[] {
  const order: string[] = [];
  const visit = (service: string, path: string[]) => {
    if (order.includes(service)) return;
    if (path.includes(service)) throw new Error(`dependency cycle: ${[...path, service].join(' -> ')}`);
    for (const [dependency, { required }] of Object.entries(
      project.file.services[service]!.depends_on ?? {},
    )) {
      if (!active(project, dependency)) {
        if (required === false) continue;
        throw new Error(`${service} needs ${dependency}, which no active profile runs`);
      }
      visit(dependency, [...path, service]);
    }
    order.push(service);
  };
  for (const service of Object.keys(project.file.services)) if (active(project, service)) visit(service, []);
  return order;
}

/** `podman healthcheck run` until it reports healthy: podman runs health checks on systemd timers, absent here. */
export async function awaitHealthy(container: string, timeoutMs: number): Promise<void> {
  await until(
    `${container} healthy`,
    async () => ((await podman(['healthcheck', 'run', container])).code === 0 ? true : undefined),
    { timeoutMs, intervalMs: 1_000 },
  );
}

async function awaitCondition(project: ComposeProject, service: string, condition: string): Promise<void> {
  const container = containerName(project, service);
  if (condition === 'service_healthy') return awaitHealthy(container, 180_000);
  if (condition === 'service_completed_successfully') {
    const code = (await podmanOk(['wait', container], { timeoutMs: 300_000 })).trim();
    if (code !== '0') {
      const logs = await podman(['logs', container]);
      throw new Error(`${service} exited ${code}:\n${logs.stdout}${logs.stderr}`);
    }
    return;
  }
  if (condition === 'service_started') return;
  throw new Error(`unsupported depends_on condition ${condition}`);
}

/** `docker compose up --detach --wait`: network, volumes, then each service once its dependencies are as required. */
export async function up(project: ComposeProject, log: (line: string) => void): Promise<void> {
  await podmanOk(['network', 'create', '--label', `${project.label}=${project.name}`, project.name]);
  for (const volume of Object.keys(project.file.volumes ?? {}))
    await podmanOk([
      'volume',
      'create',
      '--label',
      `${project.label}=${project.name}`,
      `${project.name}-${volume}`,
    ]);
  for (const service of startOrder(project)) {
    const definition = project.file.services[service]!;
    for (const [dependency, { condition }] of Object.entries(definition.depends_on ?? {}))
      if (active(project, dependency)) await awaitCondition(project, dependency, condition);
    const started = Date.now();
    await podmanOk([...runArguments(project, service, true), ...(definition.command ?? [])]);
    log(`started ${service} (${Date.now() - started} ms)`);
  }
  for (const service of startOrder(project))
    if (project.file.services[service]!.healthcheck)
      await awaitHealthy(containerName(project, service), 180_000);
}

/** `docker compose run --rm <service> <args>`: a one-off container with the service's settings. */
export async function runOnce(project: ComposeProject, service: string, args: string[]) {
  const result = await podman([...runArguments(project, service, false), ...args], { timeoutMs: 120_000 });
  // podman's own log lines (`time="…" level=error msg="unable to get systemd connection…"`: no systemd here for
  // health-check timers) share stderr with the container's; only the container's are the command's output.
  const stderr = result.stderr
    .split('\n')
    .filter((line) => !/^time="[^"]*" level=/.test(line))
    .join('\n');
  return { ...result, stderr };
}
