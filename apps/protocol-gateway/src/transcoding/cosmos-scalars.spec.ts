import { GOGO_PROTO_FILE, loadProtoRoot } from '@dmrv/proto';
import { parse, Root, Type } from 'protobufjs';
import { legacyDecText, qualifiedGoType } from './cosmos-scalars';
import { JsonPrinter, PrintError } from './json-printer';

describe('legacyDecText: a LegacyDec from the wire (scaled by 10^18) as its MarshalJSON prints it', () => {
  it.each([
    ['1500000000000000000', '1.500000000000000000'],
    ['-1500000000000000000', '-1.500000000000000000'],
    ['1000000000000000000', '1.000000000000000000'],
    ['500000000000000000', '0.500000000000000000'],
    ['0', '0.000000000000000000'],
    ['-0', '0.000000000000000000'],
    ['', '0.000000000000000000'],
    ['1', '0.000000000000000001'],
    ['-5', '-0.000000000000000005'],
    ['+7', '0.000000000000000007'],
    ['123456789012345678901234567890', '123456789012.345678901234567890'],
  ])('%j → %j', (wire, printed) => {
    expect(legacyDecText(wire)).toBe(printed);
  });

  it.each(['1.5', '1e18', 'abc', ' 1', '0x10', '-'])('refuses %j', (wire) => {
    expect(legacyDecText(wire)).toBeUndefined();
  });

  it('qualifies a customtype without import path by the Go package of its file, as gogoproto does', () => {
    expect(qualifiedGoType('Dec', 'github.com/cosmos/cosmos-sdk/types;types')).toBe(
      'github.com/cosmos/cosmos-sdk/types.Dec',
    );
    expect(qualifiedGoType('cosmossdk.io/math.LegacyDec', 'example.org/x')).toBe(
      'cosmossdk.io/math.LegacyDec',
    );
    expect(qualifiedGoType('Dec', undefined)).toBe('Dec');
  });
});

describe('JsonPrinter on Cosmos customtype fields', () => {
  const PROTO = `syntax = "proto3"; package dec.v1; option go_package = "github.com/cosmos/cosmos-sdk/types";
    message M {
      string rate = 1 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec", (gogoproto.nullable) = false];
      repeated string rates = 2 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec", (gogoproto.nullable) = false];
      bytes raw_rate = 3 [(gogoproto.customtype) = "Dec", (gogoproto.nullable) = false];
      string amount = 4 [(gogoproto.customtype) = "Int", (gogoproto.nullable) = false];
      bytes raw_amount = 5 [(gogoproto.customtype) = "cosmossdk.io/math.Int", (gogoproto.nullable) = false];
      string plain = 6;
      string other = 7 [(gogoproto.customtype) = "example.org/x.Dec"];
    }`;

  function annotated(): Root {
    const root = parse(PROTO, loadProtoRoot([GOGO_PROTO_FILE]), { keepCase: true }).root;
    root.resolveAll();
    return root;
  }

  function printed(root: Root, object: Record<string, unknown>, fallback?: Root): string {
    const type = root.lookupType('dec.v1.M');
    return new JsonPrinter(root, fallback).print(
      type,
      type.decode(type.encode(type.fromObject(object)).finish()),
    );
  }

  const FULL = {
    rate: '-1500000000000000000',
    rates: ['0', '1', '123456789012345678901234567890'],
    raw_rate: Buffer.from('2500000000000000000'),
    amount: '42',
    raw_amount: Buffer.from('42'),
    plain: '1500000000000000000',
    other: '15',
  };
  const FULL_JSON = {
    rate: '-1.500000000000000000',
    rates: ['0.000000000000000000', '0.000000000000000001', '123456789012.345678901234567890'],
    raw_rate: '2.500000000000000000',
    amount: '42',
    raw_amount: '42',
    plain: '1500000000000000000',
    other: '15',
  };

  it('prints LegacyDec (and Dec) with 18 decimals, single, repeated and bytes-typed; Int as its text', () => {
    expect(JSON.parse(printed(annotated(), FULL))).toEqual(FULL_JSON);
  });

  it('prints the zero values as a node does: LegacyDec "0.000000000000000000", bytes Int "0"', () => {
    expect(printed(annotated(), {})).toBe(
      '{"rate":"0.000000000000000000","rates":[],"raw_rate":"0.000000000000000000","amount":"","raw_amount":"0","plain":"","other":""}',
    );
  });

  it('refuses a LegacyDec that is not an integer on the wire', () => {
    expect(() => printed(annotated(), { rate: '1.5' })).toThrow(
      new PrintError(
        'dec.v1.M.rate: "1.5" is not a LegacyDec as the wire carries it (an integer scaled by 10^18)',
      ),
    );
  });

  it("takes the customtype from the compiled-in protos when a node's descriptors lack it", () => {
    const bare = annotated();
    for (const field of (bare.lookup('dec.v1.M') as Type).fieldsArray) field.options = {};
    expect(JSON.parse(printed(bare, FULL)).rate).toBe('-1500000000000000000');
    expect(JSON.parse(printed(bare, FULL, annotated()))).toEqual(FULL_JSON);
  });
});

// Issue 32: what a hostile node can put in these fields. Every digit of a value the type can hold is printed, however
// many (strings throughout, never a JavaScript number); a LegacyDec that is not an integer is refused with a
// PrintError (the node's own REST fails on it too); Int and Uint are printed as the node sent them, JSON-escaped.
describe('hostile LegacyDec, Int and Uint values from a node', () => {
  const PROTO = `syntax = "proto3"; package hostile.v1;
    message M {
      string dec = 1 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec", (gogoproto.nullable) = false];
      bytes raw_dec = 2 [(gogoproto.customtype) = "cosmossdk.io/math.LegacyDec", (gogoproto.nullable) = false];
      string uint = 3 [(gogoproto.customtype) = "cosmossdk.io/math.Uint", (gogoproto.nullable) = false];
      bytes raw_int = 4 [(gogoproto.customtype) = "cosmossdk.io/math.Int", (gogoproto.nullable) = false];
    }`;
  const root = parse(PROTO, loadProtoRoot([GOGO_PROTO_FILE]), { keepCase: true }).root;
  root.resolveAll();
  const type = root.lookupType('hostile.v1.M');
  /** The JSON the printer makes of a message the node encoded with these field values. */
  const print = (object: Record<string, unknown>): unknown => {
    const wire = type.encode(type.fromObject(object)).finish();
    return JSON.parse(new JsonPrinter(root).print(type, type.decode(wire)));
  };
  const TEN_TO_THE_80 = `1${'0'.repeat(80)}`;
  const HUNDRED_THOUSAND_DIGITS = `9${'8'.repeat(99_999)}`;

  it.each([
    ['10^80', TEN_TO_THE_80, `1${'0'.repeat(62)}.${'0'.repeat(18)}`],
    ['100,000 digits', HUNDRED_THOUSAND_DIGITS, `9${'8'.repeat(99_999 - 18)}.${'8'.repeat(18)}`],
    ['a plus sign and leading zeros', '+000000000000000000000042', '0.000000000000000042'],
    ['a minus sign', `-${TEN_TO_THE_80}`, `-1${'0'.repeat(62)}.${'0'.repeat(18)}`],
    ['minus zero', '-000', '0.000000000000000000'],
  ])('LegacyDec %s: printed exactly, string and bytes alike', (_case, wire, printed) => {
    expect(print({ dec: wire, raw_dec: Buffer.from(wire) })).toMatchObject({
      dec: printed,
      raw_dec: printed,
    });
  });

  it.each([
    ['an exponent', '1e80'],
    ['a capital exponent', '15E17'],
    ['a decimal point', '1.5'],
    ['letters', 'NaN'],
    ['full-width digits', '１２３'],
    ['a sign alone', '-'],
    ['two signs', '--5'],
    ['white space', ' 42'],
    ['a NUL', '4\u00002'],
  ])('LegacyDec with %s: refused with a PrintError, never printed', (_case, wire) => {
    for (const field of ['dec', 'raw_dec']) {
      const value = field === 'dec' ? wire : Buffer.from(wire);
      expect(() => print({ [field]: value })).toThrow(PrintError);
    }
  });

  it.each([
    ['10^80', TEN_TO_THE_80],
    ['100,000 digits', HUNDRED_THOUSAND_DIGITS],
    ['a sign', '-42'],
    ['an exponent', '1e80'],
    ['letters and JSON syntax', 'NaN", "x": "1'],
    ['control characters', 'line\nbreak\u0000nul'],
  ])('Uint and Int with %s: printed as the node sent them, valid JSON, nothing lost', (_case, wire) => {
    expect(print({ uint: wire, raw_int: Buffer.from(wire) })).toMatchObject({ uint: wire, raw_int: wire });
  });
});
