import { CUSTOMTYPE_OPTION, CUSTOMTYPE_OPTION_FIELD, descriptorTypes, HTTP_OPTION_FIELD } from '@dmrv/proto';
import { Root, Type } from 'protobufjs';
import { qualifiedGoType } from '../transcoding/cosmos-scalars';
// Adds Root.fromDescriptor (protobufjs' own descriptor types: they read the types, and skip the options).
import * as descriptorExtension from 'protobufjs/ext/descriptor';

interface AnnotatedMessage {
  name?: string;
  field?: Array<{ name?: string; options?: Record<string, unknown> }>;
  nested_type?: AnnotatedMessage[];
}

interface AnnotatedFile {
  name?: string;
  package?: string;
  options?: { go_package?: string };
  message_type?: AnnotatedMessage[];
  service?: Array<{ name?: string; method?: Array<{ name?: string; options?: Record<string, unknown> }> }>;
}

/** Puts each field's `(gogoproto.customtype)` where a .proto parsed from text has it, qualified by the file's package. */
function attachCustomTypes(
  root: Root,
  scope: string,
  messages: readonly AnnotatedMessage[],
  goPackage: string | undefined,
): void {
  for (const message of messages) {
    const name = `${scope}.${message.name ?? ''}`;
    const declared = root.lookup(name);
    if (!(declared instanceof Type)) continue;
    for (const field of message.field ?? []) {
      const customtype = field.options?.[CUSTOMTYPE_OPTION_FIELD];
      const target = declared.fields[field.name ?? ''];
      if (typeof customtype === 'string' && target !== undefined)
        target.setOption(CUSTOMTYPE_OPTION, qualifiedGoType(customtype, goPackage));
    }
    attachCustomTypes(root, name, message.nested_type ?? [], goPackage);
  }
}

/**
 * The serialized FileDescriptorProtos a node handed out through reflection, as one protobufjs Root in which each
 * method's `google.api.http` rule sits in `parsedOptions` and each field's `(gogoproto.customtype)` in its options,
 * where a .proto parsed from text puts them, so the route table and the printer read both alike. Files are taken once by name (a node repeats shared dependencies). Throws when the files do
 * not resolve (a type they reference is missing).
 */
export function rootFromFileDescriptors(files: readonly Uint8Array[]): Root {
  const { fileDescriptorProto } = descriptorTypes();
  const byName = new Map<string, { bytes: Uint8Array; annotated: AnnotatedFile }>();
  for (const bytes of files) {
    const annotated = fileDescriptorProto.toObject(fileDescriptorProto.decode(bytes)) as AnnotatedFile;
    const name = annotated.name ?? '';
    if (!byName.has(name)) byName.set(name, { bytes, annotated });
  }
  const set: descriptorExtension.IFileDescriptorSet = {
    file: [...byName.values()].map(
      ({ bytes }) =>
        descriptorExtension.FileDescriptorProto.decode(
          bytes,
        ) as unknown as descriptorExtension.IFileDescriptorProto,
    ),
  };
  // keepCase: field names as declared, as loadProtoRoot keeps them (protobufjs 8 camel-cases them by default).
  const root = Root.fromDescriptor(set, { keepCase: true });
  root.resolveAll();
  for (const { annotated } of byName.values()) {
    attachCustomTypes(
      root,
      annotated.package ?? '',
      annotated.message_type ?? [],
      annotated.options?.go_package,
    );
    for (const service of annotated.service ?? []) {
      const declared = root.lookupService(
        `${annotated.package ? `${annotated.package}.` : ''}${service.name ?? ''}`,
      );
      for (const method of service.method ?? []) {
        const rule = method.options?.[HTTP_OPTION_FIELD];
        const target = declared.methods[method.name ?? ''];
        if (rule !== undefined && target !== undefined)
          target.parsedOptions = [{ '(google.api.http)': rule }];
      }
    }
  }
  return root;
}
