import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from '@dmrv/testing';
import { APP_SERVICES, healthcheckPath, readCompose, requiredVariables } from './stack-files';

// No Docker engine runs on the CI machines, so the compose file is checked statically here; the health
// endpoints its healthchecks name are checked against the running apps in compose-health.e2e-spec.ts.
describe('docker-compose.yml', () => {
  const { raw, parsed } = readCompose();

  it('parses and defines the databases, the chain node and the three services', () => {
    expect(Object.keys(parsed.services).sort()).toEqual(
      [
        'local-chain-node',
        'postgres',
        'protocol-gateway',
        'redis',
        'registry-api',
        'registry-migrate',
        'ussd-gateway',
        'ussd-migrate',
      ].sort(),
    );
  });

  it('points every build at an existing context and Dockerfile', () => {
    const builds = Object.entries(parsed.services).filter(([, service]) => service.build);
    expect(builds.length).toBeGreaterThanOrEqual(4);
    for (const [name, service] of builds) {
      const context = join(REPO_ROOT, service.build!.context);
      expect({ name, context: existsSync(context) }).toEqual({ name, context: true });
      const dockerfile = join(context, service.build!.dockerfile);
      expect({ name, dockerfile: existsSync(dockerfile) }).toEqual({ name, dockerfile: true });
    }
  });

  it('builds or reuses an image for every service it runs', () => {
    const built = new Set(Object.values(parsed.services).filter((s) => s.build).map((s) => s.image));
    for (const [name, service] of Object.entries(parsed.services)) {
      const image = service.image ?? '';
      const ok = service.build !== undefined || built.has(image) || /^(postgres|redis):/.test(image);
      expect({ name, ok }).toEqual({ name, ok: true });
    }
  });

  it.each(APP_SERVICES.map((entry) => [entry.service, entry] as const))(
    'gives %s every variable its configuration requires',
    (_name, { service, config }) => {
      const environment = parsed.services[service]?.environment ?? {};
      const required = requiredVariables(config);
      expect(required.length).toBeGreaterThan(0);
      expect(required.filter((variable) => !(variable in environment))).toEqual([]);
    },
  );

  it('gives the migration jobs the database they migrate', () => {
    for (const job of ['registry-migrate', 'ussd-migrate']) {
      expect(parsed.services[job]?.environment?.DATABASE_URL).toMatch(/^postgres:\/\//);
      expect(parsed.services[job]?.command).toEqual(['node', 'dist/cli.js', 'migrate']);
    }
  });

  it('requires every secret with ${VAR:?message} (or leaves an optional one empty) and commits no secret value', () => {
    const references = [...raw.matchAll(/\$\{([A-Z0-9_]+)([^}]*)\}/g)];
    const secrets = references.filter(([, name]) => /PASSWORD|KEY|TOKEN|SECRET/.test(name!));
    expect(secrets.length).toBeGreaterThan(0);
    for (const [whole, , modifier] of secrets) {
      const requiredOrEmpty = modifier!.startsWith(':?') || modifier === ':-';
      expect({ whole, requiredOrEmpty }).toEqual({ whole, requiredOrEmpty: true });
    }
    for (const service of Object.values(parsed.services)) {
      for (const [name, value] of Object.entries(service.environment ?? {})) {
        if (/PASSWORD|KEY|TOKEN|SECRET/.test(name)) expect(String(value)).toMatch(/^\$\{[A-Z0-9_]+(:\?.+|:-)\}$/);
      }
    }
    for (const required of ['POSTGRES_PASSWORD', 'REGISTRY_READER_PASSWORD', 'PIN_ENCRYPTION_KEY']) {
      expect(raw).toContain(`\${${required}:?`);
    }
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
    expect(dependsOn('protocol-gateway')).toEqual({ 'local-chain-node': { condition: 'service_healthy' } });
  });

  it('gives every long-running service a healthcheck and drops privileges of our own containers', () => {
    for (const [name, service] of Object.entries(parsed.services)) {
      if (name.endsWith('-migrate')) continue;
      expect({ name, healthcheck: Array.isArray(service.healthcheck?.test) }).toEqual({ name, healthcheck: true });
    }
    for (const { service } of APP_SERVICES) {
      const definition = parsed.services[service] as Record<string, unknown>;
      expect(definition.cap_drop).toEqual(['ALL']);
      expect(definition.security_opt).toEqual(['no-new-privileges:true']);
      expect(healthcheckPath(parsed.services[service]!)).toBe('/health');
    }
  });
});
