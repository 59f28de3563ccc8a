import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ConfigValidationError, loadConfig } from '@dmrv/config';
import { REPO_ROOT } from '@dmrv/testing';
import { RegistryConfig } from '../apps/registry-api/src/config/registry.config';
import { UssdConfig } from '../apps/ussd-gateway/src/config/ussd.config';
import { ProtocolGatewayConfig } from '../apps/protocol-gateway/src/config/protocol-gateway.config';

export interface ComposeService {
  build?: { context: string; dockerfile: string; args?: Record<string, string> };
  image?: string;
  profiles?: string[];
  entrypoint?: string[];
  command?: string[];
  environment?: Record<string, string | number>;
  secrets?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string; required?: boolean }>;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  secrets?: Record<string, { file?: string }>;
}

export function readCompose(): { raw: string; parsed: ComposeFile } {
  const raw = readFileSync(join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
  return { raw, parsed: parse(raw, { merge: true }) as ComposeFile };
}

/** The apps as compose runs them, with the config class that validates their environment. */
export const APP_SERVICES = [
  { service: 'registry-api', app: 'registry-api', config: RegistryConfig },
  { service: 'ussd-gateway', app: 'ussd-gateway', config: UssdConfig },
  { service: 'protocol-gateway', app: 'protocol-gateway', config: ProtocolGatewayConfig },
] as const;

/**
 * The variables a service refuses to start without under NODE_ENV=production: those its configuration class names
 * when it validates a production environment that sets nothing else. Read through the class's own start-up
 * validation (`loadConfig`), never its decorators' metadata, so a new setting without a default, or one production
 * refuses to go without (EVENTS_TOKEN), joins the list by being declared. A variable needed only with another
 * (REDIS_SENTINEL_NAME with REDIS_SENTINELS) is not on it.
 */
export function productionRequirements(service: string, config: new () => object): string[] {
  try {
    loadConfig(service, config, { NODE_ENV: 'production' });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    return [...new Set(error.problems.map(({ variable }) => variable))].sort();
  }
}

/**
 * Of `required`, the variables an environment leaves unset: neither `X` nor `X_FILE` has a value (an empty value is
 * unset to the services, `VAR=` in an env file included). A value that is not known here (a `valueFrom`) counts as set.
 */
export function unsetIn(
  required: readonly string[],
  environment: ReadonlyMap<string, string | number | undefined>,
): string[] {
  const set = (name: string) => environment.has(name) && environment.get(name) !== '';
  return required.filter((variable) => !set(variable) && !set(`${variable}_FILE`));
}

/** Path of the URL a healthcheck command fetches. */
export function healthcheckPath(service: ComposeService): string | undefined {
  const command = service.healthcheck?.test.join(' ') ?? '';
  const match = /https?:\/\/[^/'"\s]+(\/[^'"\s)]*)/.exec(command);
  return match?.[1];
}
