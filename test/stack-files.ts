import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetadataStorage } from 'class-validator';
import { parse } from 'yaml';
import { REPO_ROOT } from '@dmrv/testing';
import { RegistryConfig } from '../apps/registry-api/src/config/registry.config';
import { UssdConfig } from '../apps/ussd-gateway/src/config/ussd.config';
import { ProtocolGatewayConfig } from '../apps/protocol-gateway/src/config/protocol-gateway.config';

export interface ComposeService {
  build?: { context: string; dockerfile: string };
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

/** Variables a config class cannot start without: those marked @IsDefined. */
export function requiredVariables(config: new () => object): string[] {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(config, '', true, false);
  // A variable required only with another (`@ValidateIf`, e.g. REDIS_SENTINEL_NAME with REDIS_SENTINELS) is not.
  const conditional = new Set(
    metadatas
      .filter((metadata) => metadata.type === 'conditionalValidation')
      .map((metadata) => metadata.propertyName),
  );
  return metadatas
    .filter((metadata) => metadata.type === 'isDefined' && !conditional.has(metadata.propertyName))
    .map((metadata) => metadata.propertyName)
    .sort();
}

/** Path of the URL a healthcheck command fetches. */
export function healthcheckPath(service: ComposeService): string | undefined {
  const command = service.healthcheck?.test.join(' ') ?? '';
  const match = /https?:\/\/[^/'"\s]+(\/[^'"\s)]*)/.exec(command);
  return match?.[1];
}
