import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Namespace, parse, ReflectionObject, Service } from 'protobufjs';

/** Where the chain's modules keep their query service: `ixo/<module>/<version>/query.proto`. */
const CHAIN_PACKAGE = 'ixo';
const QUERY_FILE = 'query.proto';

const directories = (path: string): string[] =>
  readdirSync(path)
    .filter((name) => statSync(join(path, name)).isDirectory())
    .sort();

/**
 * Every chain module's query file under `protoRoot`, `ixo/<module>/<version>/query.proto`, in path order: adding a
 * module is adding its directory and nothing else.
 */
export function discoverQueryProtoFiles(protoRoot: string): string[] {
  const chain = join(protoRoot, CHAIN_PACKAGE);
  if (!existsSync(chain)) return [];
  return directories(chain).flatMap((module) =>
    directories(join(chain, module))
      .map((version) => `${CHAIN_PACKAGE}/${module}/${version}/${QUERY_FILE}`)
      .filter((file) => existsSync(join(protoRoot, file))),
  );
}

function servicesIn(object: ReflectionObject): string[] {
  if (object instanceof Service) return [object.fullName.slice(1)];
  if (object instanceof Namespace) return object.nestedArray.flatMap(servicesIn);
  return [];
}

/** The fully-qualified names of the services `files` declare, file by file, as written (their imports unread). */
export function declaredServices(files: readonly string[], protoRoot: string): string[] {
  return files.flatMap((file) =>
    servicesIn(parse(readFileSync(join(protoRoot, file), 'utf8'), { keepCase: true }).root),
  );
}
