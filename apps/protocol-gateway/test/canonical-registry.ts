import { create, createFileRegistry, FileRegistry, fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorSetSchema } from '@bufbuild/protobuf/wkt';
import { Namespace, Root, Type } from 'protobufjs';
// eslint-disable-next-line @typescript-eslint/no-require-imports -- side-effect extension without typings for the import form
const descriptor = require('protobufjs/ext/descriptor') as {
  FileDescriptorSet: {
    toObject(message: unknown, options: object): DescriptorSet;
    fromObject(object: DescriptorSet): unknown;
    encode(message: unknown): { finish(): Uint8Array };
  };
};

interface FieldDescriptor {
  name: string;
  typeName?: string;
}
interface MessageDescriptor {
  name: string;
  field?: FieldDescriptor[];
  nestedType?: MessageDescriptor[];
}
interface FileDescriptor {
  name: string;
  service?: unknown[];
  extension?: unknown[];
  package?: string;
  dependency?: string[];
  messageType?: MessageDescriptor[];
}
interface DescriptorSet {
  file: FileDescriptor[];
}

/**
 * A @bufbuild/protobuf registry of the same descriptors protobufjs parsed, so tests can compare our printer with
 * an independent implementation of protobuf's canonical JSON mapping. protobufjs' descriptor export leaves type
 * names relative and omits file dependencies; both are filled in here from the resolved reflection objects.
 */
export function canonicalRegistry(root: Root): FileRegistry {
  const set = descriptor.FileDescriptorSet.toObject(
    (root as unknown as { toDescriptor(syntax: string): unknown }).toDescriptor('proto3'),
    {
      defaults: false,
    },
  );
  const fileOfPackage = new Map(set.file.map((file) => [file.package ?? '', file.name]));
  for (const file of set.file) {
    // Only messages and enums take part in JSON; services and option extensions would need more wiring.
    delete file.service;
    delete file.extension;
    const dependencies = new Set<string>();
    const visit = (message: MessageDescriptor, scope: string): void => {
      // Map entries are synthesized by the descriptor export; the fixtures keep their values scalar.
      // protobufjs lists extension fields (`.google.api.http`) inside the message they extend.
      message.field = message.field?.filter((field) => !field.name.startsWith('.'));
      const type = root.lookup(`${scope}.${message.name}`);
      if (!(type instanceof Type)) return;
      for (const field of message.field ?? []) {
        if (!field.typeName || field.typeName.startsWith('.')) continue;
        const resolved = type.fields[field.name]?.resolvedType;
        if (!resolved) {
          // A map field points at its synthesized entry type, nested in this message.
          field.typeName = `.${scope}.${message.name}.${field.typeName}`;
          continue;
        }
        field.typeName = resolved.fullName;
        const owner = fileOfPackage.get(packageOf(resolved.parent));
        if (owner && owner !== file.name) dependencies.add(owner);
      }
      for (const nested of message.nestedType ?? []) visit(nested, `${scope}.${message.name}`);
    };
    for (const message of file.messageType ?? []) visit(message, file.package ?? '');
    file.dependency = [...dependencies];
  }
  // The registry adds files in the order given, so every dependency must come before its dependents.
  const ordered: FileDescriptor[] = [];
  const placed = new Set<string>();
  const place = (file: FileDescriptor): void => {
    if (placed.has(file.name)) return;
    placed.add(file.name);
    for (const dependency of file.dependency ?? []) {
      const target = set.file.find((candidate) => candidate.name === dependency);
      if (target) place(target);
    }
    ordered.push(file);
  };
  set.file.forEach(place);
  const bytes = descriptor.FileDescriptorSet.encode(
    descriptor.FileDescriptorSet.fromObject({ file: ordered }),
  ).finish();
  return createFileRegistry(fromBinary(FileDescriptorSetSchema, bytes) ?? create(FileDescriptorSetSchema));
}

function packageOf(namespace: Namespace | null): string {
  let current: Namespace | null = namespace;
  while (current && current instanceof Type) current = current.parent;
  return current?.fullName.replace(/^\./, '') ?? '';
}
