import { join } from 'node:path';
import { loadProtoRoot, QUERY_PROTO_FILES } from '@dmrv/proto';
import { bindRequest, BindError, decodeBase64, jsonName } from './query-binder';

const fixture = loadProtoRoot(['everything.proto'], join(__dirname, '__fixtures__'));
const Everything = fixture.lookupType('dmrv.fixture.Everything');
const chain = loadProtoRoot(QUERY_PROTO_FILES);

function bind(query: Array<[string, string]>, path: Array<[string, string]> = []): Record<string, unknown> {
  return bindRequest(Everything, path, query);
}

describe('query binder: values that bind', () => {
  const cases: Array<[string, Array<[string, string]>, Record<string, unknown>]> = [
    ['int32 at its minimum', [['an_int32', '-2147483648']], { an_int32: -2147483648 }],
    ['uint32 at its maximum', [['a_uint32', '4294967295']], { a_uint32: 4294967295 }],
    [
      'int64 beyond 2^53 stays exact',
      [['an_int64', '-9223372036854775808']],
      { an_int64: '-9223372036854775808' },
    ],
    ['uint64 at its maximum', [['a_uint64', '18446744073709551615']], { a_uint64: '18446744073709551615' }],
    [
      'sint64, fixed64, sfixed64',
      [
        ['a_sint64', '-5'],
        ['a_fixed64', '9007199254740993'],
        ['an_sfixed64', '-1'],
      ],
      { a_sint64: '-5', a_fixed64: '9007199254740993', an_sfixed64: '-1' },
    ],
    ['double with exponent', [['a_double', '-1.5e-3']], { a_double: -0.0015 }],
    ['float special values', [['a_float', 'Infinity']], { a_float: Infinity }],
    ['bool as true/1/T', [['a_bool', 'T']], { a_bool: true }],
    ['bool as 0', [['a_bool', '0']], { a_bool: false }],
    [
      'string kept verbatim (colons, spaces)',
      [['a_string', 'did:ixo:entity:a b']],
      { a_string: 'did:ixo:entity:a b' },
    ],
    ['bytes from standard base64', [['some_bytes', '+/8=']], { some_bytes: Buffer.from([0xfb, 0xff]) }],
    [
      'bytes from URL-safe base64 without padding',
      [['some_bytes', '-_8']],
      { some_bytes: Buffer.from([0xfb, 0xff]) },
    ],
    [
      'bytes whose + arrived as a space (unencoded query)',
      [['some_bytes', ' /8=']],
      { some_bytes: Buffer.from([0xfb, 0xff]) },
    ],
    ['enum by name', [['colour', 'GREEN']], { colour: 2 }],
    ['enum by number', [['colour', '1']], { colour: 1 }],
    [
      'nested field with a.b',
      [
        ['inner.label', 'x'],
        ['inner.weight', '-3'],
      ],
      { inner: { label: 'x', weight: '-3' } },
    ],
    ['nested enum by name', [['inner.tint', 'RED']], { inner: { tint: 1 } }],
    [
      'camelCase name of a snake_case field',
      [
        ['aUint64', '7'],
        ['someBytes', 'AA=='],
      ],
      { a_uint64: '7', some_bytes: Buffer.from([0]) },
    ],
    ['a field declared in camelCase', [['camelCase', 'v']], { camelCase: 'v' }],
    [
      'repeated scalars by repeated keys, in order',
      [
        ['many_int64', '3'],
        ['many_int64', '-1'],
      ],
      { many_int64: ['3', '-1'] },
    ],
    [
      'repeated enums',
      [
        ['colours', 'RED'],
        ['colours', '2'],
      ],
      { colours: [1, 2] },
    ],
    [
      'Timestamp from RFC 3339 with offset and nanos',
      [['at', '2024-01-01T02:00:00.000000005+02:00']],
      { at: { seconds: '1704067200', nanos: 5 } },
    ],
    ['Duration', [['took', '-1.5s']], { took: { seconds: '-1', nanos: -500000000 } }],
    [
      'wrapper types',
      [
        ['maybe_int64', '12'],
        ['maybe_string', ''],
      ],
      { maybe_int64: { value: '12' }, maybe_string: { value: '' } },
    ],
    ['one member of a oneof', [['choice_inner.label', 'x']], { choice_inner: { label: 'x' } }],
  ];

  it.each(cases)('%s', (_name, query, expected) => {
    expect(bind(query)).toEqual(expected);
  });

  it('binds path fields first, then the query', () => {
    const request = chain.lookupType('ixo.claims.v1beta1.QueryCollectionMemberListRequest');
    const bound = bindRequest(
      request,
      [['collectionId', '7']],
      [
        ['pagination.key', 'AQI='],
        ['pagination.countTotal', 'true'],
        ['pagination.limit', '50'],
      ],
    );
    expect(bound).toEqual({
      collectionId: '7',
      pagination: { key: Buffer.from([1, 2]), count_total: true, limit: '50' },
    });
    expect(() => request.verify(request.fromObject(bound))).not.toThrow();
  });

  it('keeps a DID with colons from the path as one value', () => {
    const request = chain.lookupType('ixo.entity.v1beta1.QueryEntityRequest');
    expect(bindRequest(request, [['id', 'did:ixo:entity:abc']], [])).toEqual({ id: 'did:ixo:entity:abc' });
  });
});

describe('query binder: values that are refused (400)', () => {
  const cases: Array<[string, Array<[string, string]>, RegExp]> = [
    ['an unknown parameter', [['pagination.limt', '5']], /unknown query parameter pagination.limt/],
    ['a non-integer for an integer', [['an_int32', '1.5']], /not a valid int32/],
    ['int32 overflow', [['an_int32', '2147483648']], /out of range/],
    ['a negative unsigned', [['a_uint64', '-1']], /out of range/],
    ['uint64 overflow', [['a_uint64', '18446744073709551616']], /out of range/],
    ['int64 in exponent form', [['an_int64', '1e3']], /not a valid int64/],
    ['a word for a bool', [['a_bool', 'yes']], /not a boolean/],
    ['an empty number', [['a_double', '']], /not a number/],
    ['bad base64', [['some_bytes', 'a$b']], /not valid base64/],
    ['base64 of impossible length', [['some_bytes', 'abcde']], /not valid base64/],
    ['an unknown enum name', [['colour', 'BLUE']], /not a value of Colour/],
    ['an undefined enum number', [['colour', '9']], /not a value of Colour/],
    [
      'a second value for a singular field',
      [
        ['a_string', 'a'],
        ['a_string', 'b'],
      ],
      /more than once/,
    ],
    ['a message field set as a whole', [['inner', 'x']], /cannot be set from the URL/],
    ['a map field', [['counts', 'x']], /map fields cannot/],
    [
      'two members of one oneof',
      [
        ['choice_text', 'a'],
        ['choice_inner.label', 'b'],
      ],
      /only one of/,
    ],
    ['a path below a scalar', [['a_string.x', 'a']], /has no field x/],
    ['a malformed timestamp', [['at', '2024-01-01']], /not an RFC 3339 timestamp/],
    ['a malformed duration', [['took', '5m']], /not a duration/],
  ];

  it.each(cases)('%s', (_name, query, message) => {
    expect(() => bind(query)).toThrow(BindError);
    expect(() => bind(query)).toThrow(message);
  });

  // Field lookups go through plain objects keyed by name; the names of Object.prototype must not be found there.
  it.each([
    '__proto__',
    'constructor',
    'toString',
    'hasOwnProperty',
    'pagination.__proto__',
    '__proto__.limit',
  ])('refuses %s like any other unknown parameter', (key) => {
    const request = chain.lookupType('ixo.claims.v1beta1.QueryClaimListRequest');
    expect(() => bindRequest(request, [], [[key, 'x']])).toThrow(
      new BindError(`unknown query parameter ${key}`),
    );
  });

  describe('with unknownParameters: ignore (the gateway default, grpc-gateway behaviour)', () => {
    const request = chain.lookupType('ixo.claims.v1beta1.QueryClaimListRequest');
    const ignore = { unknownParameters: 'ignore' } as const;

    it.each([
      '_',
      'verbose',
      'pagination.limt',
      'pagination.limit.x',
      '__proto__',
      'pagination.__proto__',
      'toString',
    ])('skips %s and binds the rest', (key) => {
      expect(
        bindRequest(
          request,
          [],
          [
            [key, 'x'],
            ['pagination.limit', '5'],
          ],
          ignore,
        ),
      ).toEqual({
        pagination: { limit: '5' },
      });
    });

    it('still refuses a bad value, a second value and a message set as a whole', () => {
      expect(() => bindRequest(request, [], [['pagination.limit', 'abc']], ignore)).toThrow(
        /pagination.limit/,
      );
      expect(() =>
        bindRequest(
          request,
          [],
          [
            ['pagination.limit', '1'],
            ['pagination.limit', '2'],
          ],
          ignore,
        ),
      ).toThrow(/more than once/);
      expect(() => bindRequest(request, [], [['pagination', 'x']], ignore)).toThrow(/message fields/);
    });
  });

  it('refuses a query parameter that repeats a path field', () => {
    const request = chain.lookupType('ixo.entity.v1beta1.QueryEntityRequest');
    expect(() => bindRequest(request, [['id', 'did:a']], [['id', 'did:b']])).toThrow(
      /already given by the path/,
    );
  });
});

describe('helpers', () => {
  it.each([
    ['count_total', 'countTotal'],
    ['contract_1155_payment', 'contract1155Payment'],
    ['agentAddress', 'agentAddress'],
  ])('jsonName(%s) = %s', (proto, json) => {
    expect(jsonName(proto)).toBe(json);
  });

  it('decodes base64 with and without padding', () => {
    expect(decodeBase64('YQ', 'k')).toEqual(Buffer.from('a'));
    expect(decodeBase64('YQ==', 'k')).toEqual(Buffer.from('a'));
    expect(decodeBase64('', 'k')).toEqual(Buffer.alloc(0));
    expect(() => decodeBase64('YQ===', 'k')).toThrow(BindError);
  });
});
