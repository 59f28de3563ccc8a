import { dirname, join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { Root } from 'protobufjs';

/** Directory holding our .proto files (shipped with the package, next to dist/). */
export const PROTO_ROOT = join(__dirname, '..', 'proto');

/**
 * The chain's query services the gateway transcodes and the local chain node serves. Adding a module is adding its
 * `query.proto` here: the gateway's routes come from the `google.api.http` annotations it finds in these files.
 */
export const QUERY_PROTO_FILES: readonly string[] = [
  'ixo/entity/v1beta1/query.proto',
  'ixo/claims/v1beta1/query.proto',
  'ixo/token/v1beta1/query.proto',
  'ixo/iid/v1beta1/query.proto',
];

/** Fully-qualified names of the query services declared by QUERY_PROTO_FILES. */
export const QUERY_SERVICES: readonly string[] = [
  'ixo.entity.v1beta1.Query',
  'ixo.claims.v1beta1.Query',
  'ixo.token.v1beta1.Query',
  'ixo.iid.v1beta1.Query',
];

export const HEALTH_PROTO_FILE = 'grpc/health/v1/health.proto';
export const HEALTH_SERVICE = 'grpc.health.v1.Health';
export const REFLECTION_PROTO_FILE = 'grpc/reflection/v1alpha/reflection.proto';
export const REFLECTION_SERVICE = 'grpc.reflection.v1alpha.ServerReflection';

// protobufjs bundles the well-known types (timestamp, duration, any, ...) but reads descriptor.proto, which
// google/api/annotations.proto extends, from its own package directory.
const PROTOBUFJS_INCLUDE = dirname(
  dirname(dirname(require.resolve('protobufjs/google/protobuf/descriptor.proto'))),
);
const BUNDLED_WELL_KNOWN =
  /^google\/protobuf\/(any|api|duration|empty|field_mask|source_context|struct|timestamp|type|wrappers)\.proto$/;

/**
 * Parses proto files into one protobufjs Root, every reference resolved. Field names stay as declared in the
 * .proto (snake_case and camelCase alike), because the Cosmos JSON mapping prints the declared names.
 */
export function loadProtoRoot(
  files: readonly string[] = QUERY_PROTO_FILES,
  protoRoot: string = PROTO_ROOT,
): Root {
  const root = new Root();
  root.resolvePath = (_origin, target) => {
    if (BUNDLED_WELL_KNOWN.test(target)) return target;
    if (target === 'google/protobuf/descriptor.proto') return join(PROTOBUFJS_INCLUDE, target);
    return join(protoRoot, target);
  };
  root.loadSync([...files], { keepCase: true });
  root.resolveAll();
  return root;
}

/**
 * The same files as a @grpc/proto-loader package definition (with serialized descriptors), the form that
 * @grpc/reflection needs to describe a server's services.
 */
export function loadPackageDefinition(
  files: readonly string[] = QUERY_PROTO_FILES,
  protoRoot: string = PROTO_ROOT,
): protoLoader.PackageDefinition {
  return protoLoader.loadSync([...files], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    includeDirs: [protoRoot, PROTOBUFJS_INCLUDE],
  });
}
