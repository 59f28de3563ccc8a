import { IsDefined, IsString } from 'class-validator';
import { UssdConfig } from '../apps/ussd-gateway/src/config/ussd.config';
import { interpolate } from './containers/compose-runner';
import { effectiveEnv, OVERLAYS, renderOverlays } from './kubernetes-manifests';
import { APP_SERVICES, productionRequirements, readCompose, unsetIn } from './stack-files';

// Every setting a service cannot run production without is given by every way the repository ships it: compose and
// each Kubernetes overlay. The list comes from each service's configuration class, through its own start-up
// validation under NODE_ENV=production, so a setting added tomorrow without a default (or refused in production
// without a value) fails here until compose and the overlays give it, instead of failing at an operator's first start.

const NAME_LABEL = 'app.kubernetes.io/name';

type Environment = ReadonlyMap<string, string | number | undefined>;

/** Each app's environment in each shipped deployment: `compose`, and `overlay <name>` for each Kubernetes overlay. */
function shippedEnvironments(): Array<{ deployment: string; service: string; env: Environment }> {
  const { parsed } = readCompose();
  const compose = APP_SERVICES.map(({ service }) => ({
    deployment: 'compose',
    service,
    // As compose hands it over with nothing set on the operator's side: `${VAR:-}` defaults applied.
    env: new Map(
      Object.entries(parsed.services[service]?.environment ?? {}).map(([name, value]) => [
        name,
        interpolate(String(value), {}),
      ]),
    ),
  }));
  const overlays = renderOverlays();
  const kubernetes = OVERLAYS.flatMap((name) => {
    const overlay = overlays.get(name)!;
    return APP_SERVICES.map(({ service }) => {
      const server = overlay.workloads.find(
        (workload) =>
          workload.object.kind === 'Deployment' &&
          workload.labels[NAME_LABEL] === service &&
          workload.labels['app.kubernetes.io/component'] === 'server',
      );
      if (!server) throw new Error(`overlay ${name} has no server Deployment for ${service}`);
      return {
        deployment: `overlay ${name}`,
        service,
        env: effectiveEnv(overlay, server.pod.containers[0]!),
      };
    });
  });
  return [...compose, ...kubernetes];
}

describe('settings production requires, in every shipped deployment', () => {
  const shipped = shippedEnvironments();
  const configOf = (service: string) => APP_SERVICES.find((entry) => entry.service === service)!.config;

  it('derives each service’s list from its configuration class', () => {
    expect(
      Object.fromEntries(
        APP_SERVICES.map(({ service, config }) => [service, productionRequirements(service, config)]),
      ),
    ).toEqual({
      // SIGNING_KEY: outside production the registry starts unsigned and says so; production needs the key.
      'registry-api': ['DATABASE_URL', 'SIGNING_KEY'],
      // EVENTS_TOKEN: no default is fine in development (loopback may post), not in production.
      'ussd-gateway': ['DATABASE_URL', 'EVENTS_TOKEN', 'PIN_ENCRYPTION_KEY'],
      'protocol-gateway': ['GRPC_UPSTREAM'],
    });
  });

  it.each(shipped.map(({ deployment, service }) => [deployment, service] as const))(
    '%s gives %s every one of them, itself or as a file (X_FILE)',
    (deployment, service) => {
      const { env } = shipped.find((entry) => entry.deployment === deployment && entry.service === service)!;
      expect(unsetIn(productionRequirements(service, configOf(service)), env)).toEqual([]);
    },
  );

  it('fails every deployment for a required setting none of them gives yet', () => {
    class WithNewSetting extends UssdConfig {
      @IsDefined({ message: 'is required' })
      @IsString()
      AGGREGATOR_SIGNING_KEY!: string;
    }
    const required = productionRequirements('ussd-gateway', WithNewSetting);
    expect(required).toContain('AGGREGATOR_SIGNING_KEY');
    const gateways = shipped.filter(({ service }) => service === 'ussd-gateway');
    expect(gateways.map(({ deployment }) => deployment)).toEqual([
      'compose',
      'overlay dev',
      'overlay production',
      'overlay production-monitoring',
    ]);
    for (const { deployment, env } of gateways)
      expect({ deployment, unset: unsetIn(required, env) }).toEqual({
        deployment,
        unset: ['AGGREGATOR_SIGNING_KEY'],
      });
  });

  it('counts an empty value as unset, as the services do', () => {
    expect(unsetIn(['EVENTS_TOKEN'], new Map([['EVENTS_TOKEN', '']]))).toEqual(['EVENTS_TOKEN']);
    expect(unsetIn(['EVENTS_TOKEN'], new Map([['EVENTS_TOKEN_FILE', '/run/secrets/t']]))).toEqual([]);
  });
});
