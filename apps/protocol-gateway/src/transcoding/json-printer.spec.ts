import { join } from 'node:path';
import { fromBinary, toJson } from '@bufbuild/protobuf';
import { CUSTOMTYPE_OPTION, loadProtoRoot, QUERY_PROTO_FILES, QUERY_SERVICES } from '@dmrv/proto';
import { Root, Type } from 'protobufjs';
import { canonicalRegistry } from '../../test/canonical-registry';
import { expectGolden } from '../../test/golden';
import { Random, randomMessage } from '../../test/random-message';
import { buildSeed } from '../../../../tools/local-chain-node/src/seed';
import { RouteTable } from '../routes/route-table';
import { decodeAnswer } from './answer-decoder';
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

/**
 * The canonical JSON less the empty bytes fields that we print as null (a Go node's nil slice) and it prints as "".
 * Unset messages are absent from it already.
 */
function alignNulls(ours: Json, canonical: Json): Json {
  if (Array.isArray(ours) && Array.isArray(canonical))
    return canonical.map((item: Json, index) => alignNulls(ours[index], item));
  if (ours !== null && typeof ours === 'object' && canonical !== null && typeof canonical === 'object') {
    const own = ours as Record<string, Json>;
    return Object.fromEntries(
      Object.entries(canonical as Record<string, Json>)
        .filter(([key, value]) => !(own[key] === null && value === ''))
        .map(([key, value]) => [key, alignNulls(own[key], value)]),
    );
  }
  return canonical;
}

/** A LegacyDec's scaled integer with its decimal point, by integer division (an oracle apart from the printer's). */
function decimalOf(scaled: string): string {
  const value = BigInt(scaled === '' ? '0' : scaled);
  const magnitude = value < 0n ? -value : value;
  const unit = 10n ** 18n;
  return `${value < 0n ? '-' : ''}${magnitude / unit}.${(magnitude % unit).toString().padStart(18, '0')}`;
}

/**
 * The canonical JSON with LegacyDec fields as a node's REST prints them: canonical JSON prints the string the wire
 * carries (the value scaled by 10^18).
 */
function alignDecimals(type: Type, canonical: Json): Json {
  if (canonical === null || typeof canonical !== 'object' || Array.isArray(canonical)) return canonical;
  const out = { ...(canonical as Record<string, Json>) };
  for (const field of type.fieldsArray) {
    const value = out[field.name];
    if (value === undefined) continue;
    const each = (item: Json): Json => {
      if (field.getOption(CUSTOMTYPE_OPTION) === 'cosmossdk.io/math.LegacyDec')
        return decimalOf(String(item));
      return field.resolvedType instanceof Type ? alignDecimals(field.resolvedType, item) : item;
    };
    out[field.name] = Array.isArray(value) ? value.map(each) : each(value);
  }
  return out;
}

describe('JsonPrinter against protobuf canonical JSON (@bufbuild/protobuf, proto names, implicit fields emitted)', () => {
  function compare(
    root: Root,
    typeName: string,
    object: Record<string, unknown>,
  ): { ours: Json; canonical: Json } {
    const type = root.lookupType(typeName);
    const bytes = type.encode(type.fromObject(object)).finish();
    const ours = JSON.parse(new JsonPrinter(root).print(type, decodeAnswer(type, bytes))) as Json;
    const registry = canonicalRegistry(root);
    const schema = registry.getMessage(typeName)!;
    const canonical = toJson(schema, fromBinary(schema, bytes), {
      alwaysEmitImplicit: true,
      useProtoFieldName: true,
      registry,
    });
    return { ours, canonical: alignDecimals(type, canonical) };
  }

  describe('every scalar, enum, repeated, map, oneof and well-known type', () => {
    const root = loadProtoRoot(['everything.proto'], FIXTURES);
    const cases: Array<[string, Record<string, unknown>, string[]]> = [
      [
        'all defaults',
        {},
        ['some_bytes', 'inner', 'at', 'took', 'maybe_int64', 'maybe_string', 'absent', 'packed'],
      ],
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
        ['some_bytes', 'inner', 'maybe_int64', 'maybe_string', 'absent', 'packed'],
      ],
    ];

    it.each(cases)('%s', (_name, object, nulls) => {
      const { ours, canonical } = compare(root, 'dmrv.fixture.Everything', object);
      expect(withoutNulls(ours)).toEqual(alignNulls(ours, canonical));
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
      expect(withoutNulls(ours)).toEqual(alignNulls(ours, canonical));
    });
  });

  it('refuses a Timestamp outside years 1–9999, as jsonpb does', () => {
    const root = loadProtoRoot(['everything.proto'], FIXTURES);
    const type = root.lookupType('dmrv.fixture.Everything');
    const printer = new JsonPrinter(root);
    expect(() => printer.print(type, type.fromObject({ at: { seconds: '253402300800', nanos: 0 } }))).toThrow(
      PrintError,
    );
    expect(() => printer.print(type, type.fromObject({ at: { seconds: '-62135596801', nanos: 0 } }))).toThrow(
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
    expect(printer.print(any as Type, packed)).toBe(
      '{"@type":"/dmrv.fixture.Inner","label":"x","weight":"0","tint":"COLOUR_UNSPECIFIED"}',
    );
  });
});

describe('JsonPrinter bytes (golden files in test/golden; regenerate with UPDATE_GOLDEN=1 and review the diff)', () => {
  const fixtures = loadProtoRoot(['everything.proto', 'everything-else.proto'], FIXTURES);
  const chain = loadProtoRoot(QUERY_PROTO_FILES);

  /** The body, or the failure as one line. */
  function printed(root: Root, type: Type, message: Record<string, unknown>): string {
    try {
      return new JsonPrinter(root).print(type, message);
    } catch (error) {
      return `threw ${(error as Error).name}: ${(error as Error).message}`;
    }
  }

  function decoded(type: Type, object: Record<string, unknown>): Record<string, unknown> {
    return decodeAnswer(type, type.encode(type.fromObject(object)).finish()) as unknown as Record<
      string,
      unknown
    >;
  }

  function expectPrinted(
    golden: string,
    root: Root,
    typeName: string,
    objects: Array<Record<string, unknown>>,
  ): void {
    const type = root.lookupType(typeName);
    expectGolden(
      golden,
      objects.map((object) => printed(root, type, decoded(type, object))),
    );
  }

  it('on the JSON fixtures', () => {
    expectPrinted('fixtures/everything', fixtures, 'dmrv.fixture.Everything', [
      {},
      { choice_text: 'x' },
      { choice_text: '' },
      { choice_inner: {} },
      {
        a_double: NaN,
        a_float: -Infinity,
        an_int64: '-9223372036854775808',
        a_uint64: '18446744073709551615',
        a_sint64: '9007199254740993',
        a_fixed64: '9007199254740992',
        an_sfixed64: '-9007199254740992',
        a_string: 'did:ixo:entity:é∑\u0000"\u2028\ud800',
        some_bytes: Buffer.from([0xfb, 0xff, 0xbf, 0x00, 0x3e]),
        colour: 42,
        colours: [0, 1, 2, 7],
        counts: { b: '2', '10': '1', a: '-1', '2': '3' },
        at: { seconds: -62_135_596_800, nanos: 0 },
        took: { seconds: '-315576000000', nanos: -999_999_999 },
        maybe_int64: { value: '0' },
        blobs: [Buffer.alloc(0), Buffer.from('?>?>')],
        packed: { type_url: 'type.googleapis.com/dmrv.fixture.Inner', value: Buffer.alloc(0) },
      },
    ]);
  });

  it('on Any of every kind, Struct keys that JavaScript orders integers-first, and an own __proto__ map key', () => {
    const struct = {
      fields: {
        b: { string_value: 'x' },
        '10': { number_value: 1 },
        '@type': { bool_value: true },
        '2': { null_value: 0 },
        a: { list_value: { values: [{ number_value: NaN }, { struct_value: { fields: { '1': {} } } }] } },
      },
    };
    const pack = (typeName: string, object: Record<string, unknown>): Record<string, unknown> => {
      const type = fixtures.lookupType(typeName);
      return {
        type_url: `type.googleapis.com/${typeName}`,
        value: type.encode(type.fromObject(object)).finish(),
      };
    };
    const anyOfAny = pack('google.protobuf.Any', pack('dmrv.fixture.Inner', { label: 'deep' }));
    expectPrinted('fixtures/everything-else', fixtures, 'dmrv.fixture.EverythingElse', [
      {
        struct,
        any: pack('google.protobuf.Struct', struct),
        anys: [
          anyOfAny,
          pack('google.protobuf.Empty', {}),
          pack('google.protobuf.Value', {}),
          pack('google.protobuf.Value', { struct_value: struct }),
          pack('google.protobuf.ListValue', { values: [{ bool_value: false }] }),
          pack('google.protobuf.Timestamp', { seconds: 1, nanos: 1000 }),
          pack('google.protobuf.Duration', { seconds: '-1', nanos: -1 }),
          pack('google.protobuf.StringValue', { value: '"' }),
          pack('google.protobuf.FieldMask', { paths: ['a_b.c_d'] }),
          { type_url: '', value: Buffer.alloc(0) },
        ],
        labels: JSON.parse('{"__proto__": "own key", "x": "y"}') as Record<string, unknown>,
        values: JSON.parse('{"__proto__": {"string_value": "own"}, "1": {}}') as Record<string, unknown>,
        maybe: '0',
        maybe_text: '',
        pick_colour: 0,
        by_big: { '18446744073709551615': 1, '1': 2 },
        flags: { true: Buffer.from('t'), false: Buffer.alloc(0) },
        colour_by_id: { '-5': 1, '3': 99 },
      },
      { maybe_text: 'set', pick_time: { seconds: 0, nanos: 0 }, value: { null_value: 0 } },
      { any: { type_url: 'type.googleapis.com/nope.Missing', value: Buffer.alloc(0) } },
      { times: [{ seconds: '253402300800', nanos: 0 }] },
    ]);
  });

  it('escapes strings and map keys exactly as JSON.stringify does, for every UTF-16 code unit', () => {
    const type = fixtures.lookupType('dmrv.fixture.EverythingElse');
    const units = Array.from({ length: 0x10000 }, (_, unit) => String.fromCharCode(unit));
    const strings = [...units, units.join(''), '😀', '\ud83d', '\ude00x', 'x\ud83d'];
    // Prefixed keys: JavaScript would move integer-like keys first, and that order is the map's own business.
    const labels = Object.fromEntries(units.map((unit) => [`k${unit}`, `${unit}v`]));
    const paths = ['a"b', 'c\\d\u0001'];
    const body = new JsonPrinter(fixtures).print(type, type.fromObject({ strings, labels, mask: { paths } }));
    expect(body).toContain(`"strings":${JSON.stringify(strings)}`);
    expect(body).toContain(`"labels":${JSON.stringify(labels)}`);
    expect(body).toContain(`"mask":${JSON.stringify(paths.join(','))}`);
  });

  it('on records of the local chain node seed', () => {
    const seed = buildSeed();
    const entities = seed.entities.slice(0, 12).map((entity, index) => ({
      entity,
      iidDocument: seed.iidDocuments[index],
    }));
    const cases: Array<[string, Array<Record<string, unknown>>]> = [
      ['ixo.entity.v1beta1.QueryEntityResponse', entities],
      [
        'ixo.entity.v1beta1.QueryEntityListResponse',
        [
          {
            entities: seed.entities.slice(0, 12),
            pagination: { next_key: Buffer.from('did:ixo:entity:ff+/'), total: '120' },
          },
        ],
      ],
      ['ixo.entity.v1beta1.QueryParamsResponse', [{ params: seed.entityParams }]],
      ['ixo.claims.v1beta1.QueryClaimListResponse', [{ claims: seed.claims.slice(0, 20), pagination: {} }]],
      [
        'ixo.claims.v1beta1.QueryCollectionResponse',
        seed.collections.slice(0, 10).map((collection) => ({ collection })),
      ],
      ['ixo.claims.v1beta1.QueryDisputeListResponse', [{ disputes: seed.disputes.slice(0, 10) }]],
      ['ixo.claims.v1beta1.QueryIntentListResponse', [{ intents: seed.intents.slice(0, 10) }]],
      ['ixo.claims.v1beta1.QueryParamsResponse', [{ params: seed.claimsParams }]],
      ['ixo.token.v1beta1.QueryParamsResponse', [{ params: seed.tokenParams }]],
      ['ixo.token.v1beta1.QueryTokenListResponse', [{ tokenDocs: seed.tokens.slice(0, 10) }]],
      ['ixo.token.v1beta1.QueryTokenMetadataResponse', [...seed.tokenMetadata.values()].slice(0, 10)],
      ['ixo.iid.v1beta1.QueryIidDocumentsResponse', [{ iidDocuments: seed.iidDocuments.slice(0, 12) }]],
    ];
    for (const [typeName, objects] of cases) expectPrinted(`seed/${typeName}`, chain, typeName, objects);
  });

  describe('on random messages (seeded: a failure names its index)', () => {
    const random = (
      root: Root,
      typeName: string,
      count: number,
      seed: number,
    ): Array<Record<string, unknown>> => {
      const generator = new Random(seed);
      const type = root.lookupType(typeName);
      return Array.from({ length: count }, () => randomMessage(root, type, generator));
    };

    it.each([
      ['dmrv.fixture.Everything', 1],
      ['dmrv.fixture.EverythingElse', 2],
      ['dmrv.fixture.Tree', 3],
    ])('%s', (typeName, seed) => {
      expectPrinted(`random/${typeName}`, fixtures, typeName, random(fixtures, typeName, 60, seed));
    });

    const responses = [
      ...new Set(
        RouteTable.fromRoot(chain, QUERY_SERVICES).routes.map((route) => route.responseType.fullName),
      ),
    ].map((name) => name.slice(1));

    // Seeded by the type's name (FNV-1a), not its place in the route table: a new module leaves the others' files alone.
    const seedOf = (name: string): number =>
      [...name].reduce((hash, char) => Math.imul(hash ^ char.charCodeAt(0), 0x01000193), 0x811c9dc5) >>> 0;
    it.each(responses.map((name) => [name, seedOf(name)] as const))('%s', (typeName, seed) => {
      expectPrinted(`random/${typeName}`, chain, typeName, random(chain, typeName, 12, seed));
    });
  });
});
