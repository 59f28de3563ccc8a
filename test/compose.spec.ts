import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { readDockerignore, dockerIgnores } from './dockerfile';
import { APP_SERVICES, healthcheckPath, readCompose } from './stack-files';

// No Docker engine runs on the CI machines, so the compose file is checked statically here; the health
// endpoints its healthchecks name are checked against the running apps in compose-health.e2e-spec.ts, the
// secret files against the apps' configuration in compose-secrets.int-spec.ts, and the settings production requires
// in production-settings.spec.ts.
const SECRET_NAME = /PASSWORD|_KEY$|_KEYS$|TOKEN|SECRET|DATABASE_URL|REDIS_URL/;

describe('docker-compose.yml', () => {
  const { raw, parsed } = readCompose();
  const services = Object.entries(parsed.services);

  it('parses and defines the databases, the chain node, the operator CLI and the three services', () => {
    expect(Object.keys(parsed.services).sort()).toEqual(
      [
        'local-chain-node',
        'postgres',
        'protocol-gateway',
        'redis',
        'registry-api',
        'registry-cli',
        'registry-migrate',
        'ussd-gateway',
        'ussd-migrate',
      ].sort(),
    );
  });

  it('points every build at an existing context and Dockerfile', () => {
    const builds = services.filter(([, service]) => service.build);
    expect(builds.length).toBeGreaterThanOrEqual(4);
    for (const [name, service] of builds) {
      const context = join(REPO_ROOT, service.build!.context);
      expect({ name, context: existsSync(context) }).toEqual({ name, context: true });
      const dockerfile = join(context, service.build!.dockerfile);
      expect({ name, dockerfile: existsSync(dockerfile) }).toEqual({ name, dockerfile: true });
    }
  });

  it('builds or reuses an image for every service it runs', () => {
    const built = new Set(services.filter(([, s]) => s.build).map(([, s]) => s.image));
    for (const [name, service] of services) {
      const image = service.image ?? '';
      const ok = service.build !== undefined || built.has(image) || /^(postgres|redis):/.test(image);
      expect({ name, ok }).toEqual({ name, ok: true });
    }
  });

  it('gives the migration jobs and the operator CLI the owner database URL', () => {
    for (const job of ['registry-migrate', 'ussd-migrate']) {
      expect(parsed.services[job]?.environment?.DATABASE_URL_FILE).toMatch(/^\/run\/secrets\//);
      expect(parsed.services[job]?.command).toEqual(['node', 'dist/cli.js', 'migrate']);
    }
    expect(parsed.services['registry-api']?.environment?.DATABASE_URL_FILE).toBe(
      '/run/secrets/registry_reader_database_url',
    );
    expect(parsed.services['registry-migrate']?.environment?.DATABASE_URL_FILE).toBe(
      '/run/secrets/registry_owner_database_url',
    );
  });

  it('runs the registry CLI (clients create/list/revoke) on demand only, as the owner, after migrations', () => {
    const cli = parsed.services['registry-cli']!;
    expect(cli.profiles).toEqual(['tools']);
    expect(cli.image).toBe(parsed.services['registry-migrate']!.image);
    expect(cli.entrypoint).toEqual(['node', 'dist/cli.js']);
    expect(cli.environment).toEqual({ DATABASE_URL_FILE: '/run/secrets/registry_owner_database_url' });
    expect(cli.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      'registry-migrate': { condition: 'service_completed_successfully' },
    });
    // The documented step is the CLI's real command.
    const usage = readFileSync(join(REPO_ROOT, 'apps', 'registry-api', 'src', 'cli.ts'), 'utf8');
    expect(usage).toContain('clients create --name NAME');
    expect(raw).toContain('docker compose run --rm registry-cli clients create --name');
  });

  it('hands every secret over as a file under /run/secrets, never as an environment value', () => {
    const declared = parsed.secrets ?? {};
    expect(Object.keys(declared).length).toBeGreaterThan(0);
    for (const [name, service] of services) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (!SECRET_NAME.test(variable.replace(/_FILE$/, ''))) continue;
        expect({ name, variable }).toEqual({ name, variable: expect.stringMatching(/_FILE$/) as string });
        const secret = /^\/run\/secrets\/([a-z_]+)$/.exec(String(value))?.[1];
        expect({ name, variable, secret, mounted: service.secrets?.includes(secret ?? '') }).toEqual({
          name,
          variable,
          secret: expect.any(String) as string,
          mounted: true,
        });
        expect(declared[secret!]).toEqual({ file: `./secrets/${secret}` });
      }
    }
    // No interpolated secret either: `${POSTGRES_PASSWORD}` would land in the container's environment.
    const interpolated = [...raw.matchAll(/\$\{([A-Z0-9_]+)[^}]*\}/g)].map(([, variable]) => variable!);
    expect(interpolated.filter((variable) => SECRET_NAME.test(variable))).toEqual([]);
  });

  it('declares only secrets a service uses, and keeps the secret files out of git and the build context', () => {
    const used = new Set(services.flatMap(([, service]) => service.secrets ?? []));
    expect(Object.keys(parsed.secrets ?? {}).sort()).toEqual([...used].sort());
    const gitignore = readFileSync(join(REPO_ROOT, '.gitignore'), 'utf8').split('\n');
    expect(gitignore).toContain('secrets/');
    const dockerignore = readDockerignore(readFileSync(join(REPO_ROOT, '.dockerignore'), 'utf8'));
    expect(dockerIgnores(dockerignore, 'secrets/postgres_password')).toBe(true);
  });

  it('gives PostgreSQL its superuser’s and each service role’s password as files (read by the image and the init script)', () => {
    expect(parsed.services.postgres?.environment).toMatchObject({
      POSTGRES_PASSWORD_FILE: '/run/secrets/postgres_password',
      REGISTRY_OWNER_PASSWORD_FILE: '/run/secrets/registry_owner_password',
      REGISTRY_READER_PASSWORD_FILE: '/run/secrets/registry_reader_password',
      USSD_DATABASE_PASSWORD_FILE: '/run/secrets/ussd_database_password',
    });
    // Over TCP: while the image initialises, its temporary server listens on the socket only, and a socket check would
    // call it healthy before the databases exist (the migrations would then start against it and fail).
    expect(parsed.services.postgres?.healthcheck?.test).toEqual([
      'CMD-SHELL',
      'pg_isready -h 127.0.0.1 -U dmrv -d dmrv_ussd',
    ]);
    const init = readFileSync(join(REPO_ROOT, 'deploy', 'postgres', '10-databases.sh'), 'utf8');
    for (const variable of ['REGISTRY_OWNER_PASSWORD', 'REGISTRY_READER_PASSWORD', 'USSD_DATABASE_PASSWORD'])
      expect(init).toContain(`"\${${variable}_FILE:-}"`);
    // psql quotes each password itself; none is spliced into SQL text.
    expect(init).toContain(":'registry_reader_password'");
  });

  it('waits for healthy dependencies and for migrations to finish', () => {
    const dependsOn = (name: string) => parsed.services[name]?.depends_on ?? {};
    expect(dependsOn('registry-api')).toEqual({
      postgres: { condition: 'service_healthy' },
      'registry-migrate': { condition: 'service_completed_successfully' },
    });
    expect(dependsOn('ussd-gateway')).toEqual({
      postgres: { condition: 'service_healthy' },
      redis: { condition: 'service_healthy' },
      'ussd-migrate': { condition: 'service_completed_successfully' },
    });
  });

  it('runs the local chain node only in the local-chain profile, and a real GRPC_UPSTREAM never waits for it', () => {
    expect(parsed.services['local-chain-node']?.profiles).toEqual(['local-chain']);
    const gateway = parsed.services['protocol-gateway']!;
    expect(gateway.profiles).toBeUndefined();
    // Compose (2.20.2+) refuses to start a service that depends on one its profiles leave out, unless the
    // dependency is marked required: false; then it is waited for only when it runs.
    expect(gateway.depends_on).toEqual({
      'local-chain-node': { condition: 'service_healthy', required: false },
    });
    expect(gateway.environment?.GRPC_UPSTREAM).toBe('${GRPC_UPSTREAM:-local-chain-node:9090}');
    // No other always-on service needs a profiled one without saying it is optional.
    for (const [name, service] of services.filter(([, s]) => s.profiles === undefined)) {
      for (const [dependency, condition] of Object.entries(service.depends_on ?? {})) {
        const profiled = parsed.services[dependency]?.profiles !== undefined;
        expect({ name, dependency, ok: !profiled || condition.required === false }).toEqual({
          name,
          dependency,
          ok: true,
        });
      }
    }
  });

  it('gives every long-running service a healthcheck and drops privileges of our own containers', () => {
    for (const [name, service] of services) {
      if (name.endsWith('-migrate') || name.endsWith('-cli')) continue;
      expect({ name, healthcheck: Array.isArray(service.healthcheck?.test) }).toEqual({
        name,
        healthcheck: true,
      });
    }
    for (const [name, service] of services.filter(
      ([, s]) => s.image?.startsWith('dmrv/') || s.image?.includes('/dmrv-'),
    )) {
      const definition = service as Record<string, unknown>;
      expect({
        name,
        cap_drop: definition.cap_drop,
        security_opt: definition.security_opt,
        read_only: definition.read_only,
      }).toEqual({
        name,
        cap_drop: ['ALL'],
        security_opt: ['no-new-privileges:true'],
        read_only: true,
      });
    }
    for (const { service } of APP_SERVICES)
      expect(healthcheckPath(parsed.services[service]!)).toBe('/health');
  });

  it('publishes the services on 127.0.0.1 unless the operator sets BIND_ADDRESS, and nothing else at all', () => {
    const published = services.filter(([, service]) => (service as { ports?: unknown }).ports !== undefined);
    expect(published.map(([name]) => name).sort()).toEqual(APP_SERVICES.map(({ service }) => service).sort());
    for (const [name, service] of published) {
      const ports = (service as { ports: string[] }).ports;
      const port = String(parsed.services[name]!.environment?.PORT);
      const variable = `${name.toUpperCase().replace(/-/g, '_')}_HOST_PORT`;
      expect({ name, ports }).toEqual({
        name,
        ports: [`\${BIND_ADDRESS:-127.0.0.1}:\${${variable}:-${port}}:${port}`],
      });
    }
    // The variables an operator may set are the ones the deployment guide documents.
    const guide = readFileSync(join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
    expect(guide).toContain('BIND_ADDRESS');
    for (const [name] of published)
      expect(guide).toContain(`${name.toUpperCase().replace(/-/g, '_')}_HOST_PORT`);
  });

  it('makes Redis require a password: an ACL file from a secret, the gateway’s URL and the health check from files', () => {
    const redis = parsed.services.redis!;
    expect(redis.command).toEqual([
      'redis-server',
      '--save',
      '',
      '--appendonly',
      'no',
      '--aclfile',
      '/run/secrets/redis_users_acl',
    ]);
    expect(redis.secrets?.sort()).toEqual(['redis_password', 'redis_users_acl']);
    // The check authenticates from the file (REDISCLI_AUTH, not -a on an argument list) and wants PONG, which an
    // unauthenticated ping (NOAUTH) never answers.
    expect(redis.healthcheck?.test).toEqual([
      'CMD-SHELL',
      'REDISCLI_AUTH="$$(cat /run/secrets/redis_password)" redis-cli ping | grep -qx PONG',
    ]);
    const gateway = parsed.services['ussd-gateway']!;
    expect(gateway.environment?.REDIS_URL).toBeUndefined();
    expect(gateway.environment?.REDIS_URL_FILE).toBe('/run/secrets/ussd_redis_url');
    expect(gateway.secrets).toContain('ussd_redis_url');
    // Nothing but the gateway gets the URL, and nothing but Redis the ACL file.
    for (const [name, service] of services) {
      if (name !== 'ussd-gateway')
        expect({ name, url: service.secrets?.includes('ussd_redis_url') ?? false }).toEqual({
          name,
          url: false,
        });
      if (name !== 'redis')
        expect({ name, acl: service.secrets?.includes('redis_users_acl') ?? false }).toEqual({
          name,
          acl: false,
        });
    }
  });

  it('documents the USSD gateway’s Redis user with the rules deploy/compose-secrets.sh gives it', () => {
    const script = readFileSync(join(REPO_ROOT, 'deploy', 'compose-secrets.sh'), 'utf8').replace(/\\\n/g, '');
    const commands = /^USSD_REDIS_COMMANDS="([^"]+)"$/m.exec(script)?.[1];
    expect(commands).toMatch(/^\+hello .* \+zremrangebyscore /);
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'deployment.md'), 'utf8');
    expect(doc).toContain(
      `ACL SETUSER ussd-gateway on ><password> resetkeys ~ussd:* resetchannels -@all ${commands}\n`,
    );
    expect(script).toContain('resetkeys ~ussd:* resetchannels -@all $USSD_REDIS_COMMANDS"');
  });

  it('gives each service more time to stop than it takes to drain (SHUTDOWN_GRACE_MS) before SIGKILL', () => {
    for (const { service, config } of APP_SERVICES) {
      const grace = (parsed.services[service] as { stop_grace_period?: string }).stop_grace_period;
      const drainMs = Number(
        parsed.services[service]!.environment?.SHUTDOWN_GRACE_MS ?? new config().SHUTDOWN_GRACE_MS,
      );
      expect({ service, grace }).toEqual({ service, grace: expect.stringMatching(/^\d+s$/) as string });
      expect({ service, covers: Number(grace!.slice(0, -1)) * 1000 > drainMs }).toEqual({
        service,
        covers: true,
      });
    }
  });
});
