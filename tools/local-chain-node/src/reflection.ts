import { Server, ServerDuplexStream, ServiceDefinition, status } from '@grpc/grpc-js';
import {
  descriptorTypes,
  fileDescriptors,
  HTTP_OPTION_FIELD,
  loadProtoRoot,
  REFLECTION_PROTO_FILE,
} from '@dmrv/proto';
import type { Root } from 'protobufjs';

type Plain = Record<string, unknown>;

/** What the node's reflection says beyond the services it serves (a node whose descriptors a gateway must survive). */
export interface AdvertisedDescriptors {
  /**
   * `service/Method` → the `google.api.http` rule (a plain google.api.HttpRule: `{ get: '/…', additional_bindings:
   * [{ post: '/…' }] }`) advertised instead of the method's own; null advertises none. The method is served as before.
   */
  httpRules?: Readonly<Record<string, Plain | null>>;
  /** More services listed, and serialized FileDescriptorProtos handed out with every file; nothing serves them. */
  services?: readonly string[];
  files?: readonly Uint8Array[];
}

interface PlainFile {
  package?: string;
  service?: Array<{ name?: string; method?: Array<{ name?: string; options?: Plain }> }>;
}

/** The files with the rules of `httpRules` in place of their own. */
function withRules(files: readonly Buffer[], httpRules: Readonly<Record<string, Plain | null>>): Buffer[] {
  const { fileDescriptorProto } = descriptorTypes();
  return files.map((bytes) => {
    const plain = fileDescriptorProto.toObject(fileDescriptorProto.decode(bytes)) as PlainFile;
    let changed = false;
    for (const service of plain.service ?? []) {
      for (const method of service.method ?? []) {
        const selector = `${plain.package ?? ''}.${service.name ?? ''}/${method.name ?? ''}`;
        if (!Object.hasOwn(httpRules, selector)) continue;
        const rule = httpRules[selector];
        const options = { ...method.options };
        if (rule === null || rule === undefined) delete options[HTTP_OPTION_FIELD];
        else options[HTTP_OPTION_FIELD] = rule;
        method.options = options;
        changed = true;
      }
    }
    return changed
      ? Buffer.from(fileDescriptorProto.encode(fileDescriptorProto.fromObject(plain)).finish())
      : bytes;
  });
}

// v1 and v1alpha carry the same messages; Cosmos nodes serve v1alpha, newer tools ask v1.
const REFLECTION_SERVICES = [
  'grpc.reflection.v1alpha.ServerReflection',
  'grpc.reflection.v1.ServerReflection',
];

/** The answer to one reflection request: the services listed, or every file for a known symbol or any file name. */
function reflectionAnswers(
  root: Root,
  files: readonly Buffer[],
  services: readonly string[],
  advertisedServices: readonly string[],
): (request: Plain) => Plain {
  const extraServices = new Set(advertisedServices);
  const listed = [...services, ...extraServices, ...REFLECTION_SERVICES].map((name) => ({ name }));
  const symbolKnown = (symbol: string): boolean => {
    if (extraServices.has(symbol)) return true;
    try {
      return root.lookup(symbol) !== null;
    } catch {
      return false;
    }
  };
  return (request) => {
    const base = { valid_host: request.host ?? '', original_request: request };
    if (typeof request.list_services === 'string') {
      return { ...base, list_services_response: { service: listed } };
    }
    if (typeof request.file_containing_symbol === 'string' && symbolKnown(request.file_containing_symbol)) {
      return { ...base, file_descriptor_response: { file_descriptor_proto: files } };
    }
    if (typeof request.file_by_filename === 'string') {
      return { ...base, file_descriptor_response: { file_descriptor_proto: files } };
    }
    return {
      ...base,
      error_response: { error_code: status.NOT_FOUND, error_message: 'symbol not found' },
    };
  };
}

/**
 * gRPC server reflection whose file descriptors keep every method's `google.api.http` option, as a Cosmos node's do
 * (grpc-go hands out the files as compiled). @grpc/reflection re-encodes the files through protobufjs' descriptor
 * types, which drop every option they do not know, the HTTP rules among them.
 *
 * A `file_containing_symbol` or `file_by_filename` request is answered with every file the node has (one per
 * package), dependencies included: more than grpc-go sends, which a client has to accept anyway.
 */
export function addReflection(
  server: Server,
  root: Root,
  services: readonly string[],
  advertised: AdvertisedDescriptors = {},
): void {
  const files = [
    ...withRules(fileDescriptors(root), advertised.httpRules ?? {}),
    ...(advertised.files ?? []).map((bytes) => Buffer.from(bytes)),
  ];
  const types = loadProtoRoot([REFLECTION_PROTO_FILE]);
  const requestType = types.lookupType('grpc.reflection.v1alpha.ServerReflectionRequest');
  const responseType = types.lookupType('grpc.reflection.v1alpha.ServerReflectionResponse');
  const answer = reflectionAnswers(root, files, services, advertised.services ?? []);

  for (const name of REFLECTION_SERVICES) {
    const definition: ServiceDefinition = {
      ServerReflectionInfo: {
        path: `/${name}/ServerReflectionInfo`,
        requestStream: true,
        responseStream: true,
        requestSerialize: (value: Plain) =>
          Buffer.from(requestType.encode(requestType.fromObject(value)).finish()),
        requestDeserialize: (bytes: Buffer) =>
          requestType.toObject(requestType.decode(bytes), { oneofs: true }),
        responseSerialize: (value: Plain) =>
          Buffer.from(responseType.encode(responseType.fromObject(value)).finish()),
        responseDeserialize: (bytes: Buffer) => responseType.toObject(responseType.decode(bytes)),
      },
    };
    server.addService(definition, {
      ServerReflectionInfo: (call: ServerDuplexStream<Plain, Plain>) => {
        call.on('data', (request: Plain) => call.write(answer(request)));
        call.on('end', () => call.end());
      },
    });
  }
}
