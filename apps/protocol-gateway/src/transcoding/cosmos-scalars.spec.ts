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
