import { fileDescriptors, loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import { JsonPrinter } from '../transcoding/json-printer';
import { rootFromFileDescriptors } from './node-descriptors';
import { RouteTable } from './route-table';

describe('rootFromFileDescriptors (what a node hands out through reflection)', () => {
  const compiled = loadProtoRoot(QUERY_PROTO_FILES);
  const files = fileDescriptors(compiled);

  it('yields the same routes as the .proto files they were made from', () => {
    const fromNode = RouteTable.fromRoot(rootFromFileDescriptors(files), QUERY_SERVICES);
    const fromText = RouteTable.fromRoot(compiled, QUERY_SERVICES);
    const describe = (table: RouteTable): string[] =>
      table.routes.map((route) => `${route.httpMethod} ${route.pattern} ${route.fullMethod}`);
    expect(describe(fromNode)).toEqual(describe(fromText));
    expect(fromNode.routes.length).toBeGreaterThan(20);
  });

  it('keeps every message field: names as declared, numbers, types, repetition', () => {
    const fromNode = rootFromFileDescriptors(files);
    fromNode.resolveAll();
    compiled.resolveAll();
    for (const service of QUERY_SERVICES) {
      for (const method of compiled.lookupService(service).methodsArray) {
        for (const typeName of [method.requestType, method.responseType]) {
          const text = compiled.lookupType(`${service.replace(/\.Query$/, '')}.${typeName}`);
          const node = fromNode.lookupType(text.fullName);
          const shape = (type: typeof text): string[] =>
            type.fieldsArray.map(
              (f) =>
                `${f.id} ${f.name} ${f.resolvedType?.fullName ?? f.type} ${f.repeated ? 'repeated' : ''}`,
            );
          expect(shape(node)).toEqual(shape(text));
        }
      }
    }
  });

  it('decodes and prints an answer exactly as the compiled-in descriptors do', () => {
    const fromNode = rootFromFileDescriptors(files);
    const type = compiled.lookupType('ixo.claims.v1beta1.QueryClaimListResponse');
    const message = type.fromObject({
      claims: [
        { collection_id: '3', agent_did: 'did:ixo:a', claim_id: 'c1', payments_status: { approval: 1 } },
      ],
      pagination: { next_key: Buffer.from([1, 2]), total: '7' },
    });
    const bytes = type.encode(message).finish();
    const nodeType = fromNode.lookupType(type.fullName);
    expect(new JsonPrinter(fromNode).print(nodeType, nodeType.decode(bytes))).toBe(
      new JsonPrinter(compiled).print(type, type.decode(bytes)),
    );
  });

  it('takes a file repeated by the node once, and refuses files whose references do not resolve', () => {
    expect(() => rootFromFileDescriptors([...files, ...files])).not.toThrow();
    const withoutDependencies = files.filter((_, index) => index < 2);
    expect(() => rootFromFileDescriptors(withoutDependencies)).toThrow();
  });
});
