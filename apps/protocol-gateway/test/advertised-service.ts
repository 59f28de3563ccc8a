import { descriptorTypes, HTTP_OPTION_FIELD } from '@dmrv/proto';

/** A method of an advertised service and the `google.api.http` rule the node gives it (null: none). */
export interface AdvertisedMethod {
  name: string;
  rule: Record<string, unknown> | null;
  serverStreaming?: boolean;
}

/**
 * The serialized FileDescriptorProto of a service `<pkg>.<service>` that a node advertises through reflection but does not
 * serve (its calls answer UNIMPLEMENTED): request `Req { string id = 1; }`, answer `Res { string id = 1; }`, so a
 * path template may bind `{id}`. Self-contained: no file it depends on.
 */
export function advertisedServiceFile(
  pkg: string,
  methods: readonly AdvertisedMethod[],
  service = 'Query',
): Uint8Array {
  const { fileDescriptorProto } = descriptorTypes();
  const idField = { name: 'id', number: 1, type: 'TYPE_STRING', label: 'LABEL_OPTIONAL', json_name: 'id' };
  const plain = {
    name: `${pkg.replace(/\./g, '/')}/query.proto`,
    package: pkg,
    syntax: 'proto3',
    message_type: [
      { name: 'Req', field: [idField] },
      { name: 'Res', field: [idField] },
    ],
    service: [
      {
        name: service,
        method: methods.map((method) => ({
          name: method.name,
          input_type: `.${pkg}.Req`,
          output_type: `.${pkg}.Res`,
          server_streaming: method.serverStreaming === true,
          options: method.rule === null ? {} : { [HTTP_OPTION_FIELD]: method.rule },
        })),
      },
    ],
  };
  return fileDescriptorProto.encode(fileDescriptorProto.fromObject(plain)).finish();
}
