import { join } from 'node:path';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import { loadProtoRoot, QUERY_PROTO_FILES } from '@dmrv/proto';
import { Root, Type } from 'protobufjs';
import { canonicalRegistry } from '../../test/canonical-registry';
import { buildSeed } from '../../../../tools/local-chain-node/src/seed';
import { JsonPrinter, PrintError } from './json-printer';

const FIXTURES = join(__dirname, '__fixtures__');
type Json = unknown;

/** Paths of the null values in our output (unset message fields, which jsonpb's EmitDefaults prints as null). */
function nullPaths(value: Json, path = ''): string[] {
  if (value === null) return [path];
  if (Array.isArray(value)) return value.flatMap((item, index) => nullPaths(item, `${path}[${index}]`));
  if (typeof value === 'object')
    return Object.entries(value as object).flatMap(([key, item]) =>
      nullPaths(item, path ? `${path}.${key}` : key),
    );
  return [];
}

function withoutNulls(value: Json): Json {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as object)
        .filter(([, item]) => item !== null)
        .map(([key, item]) => [key, withoutNulls(item)]),
    );
  }
  return value;
}

describe('JsonPrinter against protobuf canonical JSON (@bufbuild/protobuf, proto names, implicit fields emitted)', () => {
  function compare(
    root: Root,
    typeName: string,
    object: Record<string, unknown>,
  ): { ours: Json; canonical: Json } {
    const type = root.lookupType(typeName);
    const bytes = type.encode(type.fromObject(object)).finish();
    const ours = new JsonPrinter(root).print(type, type.decode(bytes));
    const registry = canonicalRegistry(root);
    const schema = registry.getMessage(typeName)!;
    const canonical = toJson(schema, fromBinary(schema, bytes), {
      alwaysEmitImplicit: true,
      useProtoFieldName: true,
      registry,
    });
    return { ours, canonical };
  }

  describe('every scalar, enum, repeated, map, oneof and well-known type', () => {
    const root = loadProtoRoot(['everything.proto'], FIXTURES);
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      ['all defaults', {}, ['inner', 'at', 'took', 'maybe_int64', 'maybe_string', 'absent', 'packed']],
      [
        'extreme and awkward values',
        {
          a_double: -1234.5e-7,
          a_float: 1.5,
          an_int32: -2147483648,
          an_int64: '-9223372036854775808',
          a_uint32: 4294967295,
          a_uint64: '18446744073709551615',
          a_sint32: -7,
          a_sint64: '-9007199254740993',
          a_fixed32: 7,
          a_fixed64: '9007199254740993',
          an_sfixed32: -1,
          an_sfixed64: '-2',
          a_bool: true,
          a_string: 'did:ixo:entity:é∑\u0000"',
          some_bytes: Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x3e]),
          colour: 2,
          inner: { label: 'x', weight: '-3', tint: 1 },
          inners: [{ label: 'a' }, {}],
          many_int64: ['1', '-1', '9223372036854775807'],
          colours: [0, 1, 2],
          counts: { b: '2', a: '-1' },
          at: { seconds: 1_700_000_000, nanos: 5_000_000 },
          took: { seconds: '-1', nanos: -500_000_000 },
          maybe_int64: { value: '12' },
          maybe_string: { value: '' },
          choice_inner: { label: 'chosen' },
          camelCase: 'kept as declared',
          blobs: [Buffer.from('?>?>'), Buffer.alloc(0)],
        },
        ['absent', 'packed'],
      ],
      [
        'timestamps with microsecond and nanosecond precision',
        { at: { seconds: 0, nanos: 120_000 }, took: { seconds: 3, nanos: 1 }, choice_text: '' },
        ['inner', 'maybe_int64', 'maybe_string', 'absent', 'packed'],
      ],
    ];

    it.each(cases)('%s', (_name, object, nulls) => {
      const { ours, canonical } = compare(root, 'dmrv.fixture.Everything', object);
      expect(withoutNulls(ours)).toEqual(canonical);
      expect(nullPaths(ours).sort()).toEqual(nulls.sort());
    });

    it('prints fields in declaration order, as jsonpb does', () => {
      const { ours } = compare(root, 'dmrv.fixture.Everything', { choice_text: 'x' });
      const keys = Object.keys(ours as object);
      expect(keys.slice(0, 4)).toEqual(['a_double', 'a_float', 'an_int32', 'an_int64']);
      expect(keys.indexOf('choice_text')).toBeLessThan(keys.indexOf('camelCase'));
      expect(keys).not.toContain('choice_inner');
    });
  });

  describe('the chain messages, filled from the local chain node seed', () => {
    const root = loadProtoRoot(QUERY_PROTO_FILES);
    const seed = buildSeed();
    const cases: Array<[string, Record<string, unknown>]> = [
      [
        'ixo.entity.v1beta1.QueryEntityResponse',
        { entity: seed.entities[3], iidDocument: seed.iidDocuments[3] },
      ],
      [
        'ixo.entity.v1beta1.QueryEntityListResponse',
        {
          entities: seed.entities.slice(0, 5),
          pagination: { next_key: Buffer.from('did:ixo:entity:ff+/'), total: '120' },
        },
      ],
      [
        'ixo.claims.v1beta1.QueryClaimListResponse',
        { claims: seed.claims.slice(0, 6), pagination: { next_key: Buffer.alloc(0), total: '0' } },
      ],
      ['ixo.claims.v1beta1.QueryCollectionResponse', { collection: seed.collections[2] }],
      ['ixo.claims.v1beta1.QueryDisputeListResponse', { disputes: seed.disputes.slice(0, 3) }],
      ['ixo.claims.v1beta1.QueryIntentResponse', { intent: seed.intents[4] }],
      ['ixo.claims.v1beta1.QueryParamsResponse', { params: seed.claimsParams }],
      ['ixo.token.v1beta1.QueryTokenListResponse', { tokenDocs: seed.tokens.slice(0, 3) }],
      ['ixo.token.v1beta1.QueryTokenMetadataResponse', [...seed.tokenMetadata.values()][0]!],
      ['ixo.iid.v1beta1.QueryIidDocumentsResponse', { iidDocuments: seed.iidDocuments.slice(0, 4) }],
    ];

    it.each(cases)('%s', (typeName, object) => {
      const { ours, canonical } = compare(root, typeName, object);
      expect(withoutNulls(ours)).toEqual(canonical);
    });
  });

  it('refuses a Timestamp outside years 1–9999, as jsonpb does', () => {
    const root = loadProtoRoot(['everything.proto'], FIXTURES);
    const type = root.lookupType('dmrv.fixture.Everything');
    const printer = new JsonPrinter(root);
    expect(() => printer.print(type, type.fromObject({ at: { seconds: '253402300800', nanos: 0 } }))).toThrow(
      PrintError,
    );
    expect(() => printer.print(type, type.fromObject({ at: { seconds: 0, nanos: 1_000_000_000 } }))).toThrow(
      PrintError,
    );
  });

  it('refuses an Any whose type it has no descriptor for', () => {
    const root = loadProtoRoot(['everything.proto'], FIXTURES);
    const any = root.lookupType('google.protobuf.Any');
    const printer = new JsonPrinter(root);
    expect(() =>
      printer.print(any as Type, any.fromObject({ type_url: '/nope.Missing', value: Buffer.alloc(0) })),
    ).toThrow('no descriptor');
    const inner = root.lookupType('dmrv.fixture.Inner');
    const packed = any.fromObject({
      type_url: '/dmrv.fixture.Inner',
      value: inner.encode(inner.fromObject({ label: 'x' })).finish(),
    });
    expect(printer.print(any as Type, packed)).toEqual({
      '@type': '/dmrv.fixture.Inner',
      label: 'x',
      weight: '0',
      tint: 'COLOUR_UNSPECIFIED',
    });
  });
});
