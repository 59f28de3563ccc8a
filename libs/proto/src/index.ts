import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as protoLoader from '@grpc/proto-loader';
import { Root, Type } from 'protobufjs';
// Adds Root#toDescriptor / Root.fromDescriptor and the descriptor.proto types protobufjs itself reads and writes.
import * as descriptorExtension from 'protobufjs/ext/descriptor';
import { declaredServices, discoverQueryProtoFiles } from './query-protos';

export { declaredServices, discoverQueryProtoFiles } from './query-protos';

/** Directory holding our .proto files (shipped with the package, next to dist/). */
export const PROTO_ROOT = join(__dirname, '..', 'proto');

/**
 * The chain's query services the gateway transcodes and the local chain node serves: every
 * `ixo/<module>/<version>/query.proto` under PROTO_ROOT. Adding a module is adding its directory: the gateway's
 * routes come from the `google.api.http` annotations it finds in these files.
 */
export const QUERY_PROTO_FILES: readonly string[] = discoverQueryProtoFiles(PROTO_ROOT);

/** Fully-qualified names of the query services declared by QUERY_PROTO_FILES, read from the files themselves. */
export const QUERY_SERVICES: readonly string[] = declaredServices(QUERY_PROTO_FILES, PROTO_ROOT);

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
  protoRoot: string | readonly string[] = PROTO_ROOT,
): Root {
  const root = new Root();
  // Several directories: the first that holds the file (a tool's own protos beside ours).
  const directories = typeof protoRoot === 'string' ? [protoRoot] : protoRoot;
  root.resolvePath = (_origin, target) => {
    if (BUNDLED_WELL_KNOWN.test(target)) return target;
    if (target === 'google/protobuf/descriptor.proto') return join(PROTOBUFJS_INCLUDE, target);
    const directory = directories.find((candidate) => existsSync(join(candidate, target)));
    return join(directory ?? directories[0]!, target);
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

export const HTTP_ANNOTATIONS_PROTO_FILE = 'google/api/annotations.proto';
/** `google.api.http`'s field in MethodOptions, as protobufjs names an extension field. */
export const HTTP_OPTION_FIELD = '.google.api.http';
export const GOGO_PROTO_FILE = 'gogoproto/gogo.proto';
/** `(gogoproto.customtype)`'s field in FieldOptions, as protobufjs names an extension field. */
export const CUSTOMTYPE_OPTION_FIELD = '.gogoproto.customtype';
/** The same option on a field of a root parsed from .proto text (`field.getOption(...)`). */
export const CUSTOMTYPE_OPTION = '(gogoproto.customtype)';
// The gogoproto field options copied into the descriptors a node hands out, by their name in a parsed root.
const GOGO_FIELD_OPTIONS: ReadonlyArray<[parsed: string, field: string]> = [
  ['(gogoproto.nullable)', '.gogoproto.nullable'],
  [CUSTOMTYPE_OPTION, CUSTOMTYPE_OPTION_FIELD],
];

export interface DescriptorTypes {
  /**
   * `google.protobuf.FileDescriptorProto` with the `google.api.http` and gogoproto field extensions known, field names
   * as declared.
   */
  fileDescriptorProto: Type;
}

let cached: DescriptorTypes | undefined;

/**
 * descriptor.proto as it is on the wire, extended by google/api/annotations.proto and gogoproto/gogo.proto: protobufjs'
 * own descriptor types (`protobufjs/ext/descriptor`) skip every option they do not know, the `google.api.http` rules
 * and `(gogoproto.customtype)` among them.
 */
export function descriptorTypes(): DescriptorTypes {
  cached ??= {
    fileDescriptorProto: loadProtoRoot([HTTP_ANNOTATIONS_PROTO_FILE, GOGO_PROTO_FILE]).lookupType(
      'google.protobuf.FileDescriptorProto',
    ),
  };
  return cached;
}

interface PlainMethod {
  name?: string;
  options?: Record<string, unknown>;
}
interface PlainMessage {
  name?: string;
  field?: Array<{ name?: string; options?: Record<string, unknown> }>;
  nested_type?: PlainMessage[];
}
interface PlainFile {
  package?: string;
  message_type?: PlainMessage[];
  service?: Array<{ name?: string; method?: PlainMethod[] }>;
}

/** Copies the gogoproto options of `scope`'s fields (a parsed root keeps them) into the plain descriptors. */
function copyFieldOptions(root: Root, scope: string, messages: readonly PlainMessage[]): void {
  for (const message of messages) {
    const name = `${scope}.${message.name ?? ''}`;
    const declared = root.lookup(name);
    if (declared instanceof Type) {
      for (const field of message.field ?? []) {
        const own = declared.fields[field.name ?? ''];
        for (const [parsed, extension] of GOGO_FIELD_OPTIONS) {
          const value = own?.getOption(parsed);
          if (value !== undefined) field.options = { ...field.options, [extension]: value };
        }
      }
    }
    copyFieldOptions(root, name, message.nested_type ?? []);
  }
}

/**
 * The serialized FileDescriptorProtos of every type and service in `root` (one file per package, as
 * @grpc/proto-loader writes them), each method carrying its `google.api.http` rule and each field its gogoproto
 * options (`customtype`): what a node's server reflection hands out.
 */
export function fileDescriptors(root: Root): Buffer[] {
  const set = root.toDescriptor('proto3');
  const { fileDescriptorProto } = descriptorTypes();
  return (set.file ?? []).map((file) => {
    const bytes = descriptorExtension.FileDescriptorProto.encode(file).finish();
    const plain = fileDescriptorProto.toObject(fileDescriptorProto.decode(bytes)) as PlainFile;
    copyFieldOptions(root, plain.package ?? '', plain.message_type ?? []);
    for (const service of plain.service ?? []) {
      const declared = root.lookupService(`${plain.package ?? ''}.${service.name ?? ''}`);
      for (const method of service.method ?? []) {
        const options = (declared.methods[method.name ?? '']?.parsedOptions ?? []) as Array<
          Record<string, unknown>
        >;
        const rule = options
          .map((option) => option['(google.api.http)'])
          .find((value) => value !== undefined);
        if (rule !== undefined) method.options = { ...method.options, [HTTP_OPTION_FIELD]: rule };
      }
    }
    return Buffer.from(fileDescriptorProto.encode(fileDescriptorProto.fromObject(plain)).finish());
  });
}

export {
  chainFieldsModule,
  chainFieldTables,
  chainFieldType,
  routeMessages,
  type ChainCustomType,
  type ChainEnumValue,
  type ChainField,
  type ChainFieldTables,
} from './chain-fields';
