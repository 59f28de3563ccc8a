import { join } from 'node:path';
import { loadProtoRoot } from '@dmrv/proto';
import { Writer } from 'protobufjs';
import { decodeAnswer } from './answer-decoder';
import { JsonPrinter } from './json-printer';

const FIXTURES = join(__dirname, '__fixtures__');
/** "a", a byte that never starts UTF-8, "b", then a lone surrogate as a CESU-8 writer sends it. */
const INVALID_UTF8 = Uint8Array.from([0x61, 0xff, 0x62, 0xed, 0xa0, 0x80]);
const AS_NODE_PRINTS = 'a\ufffdb\ufffd\ufffd\ufffd';

const lengthDelimited = (writer: Writer, field: number, bytes: Uint8Array): Writer =>
  writer.uint32((field << 3) | 2).bytes(bytes);

describe('decodeAnswer: a string that is not valid UTF-8 reads as the node REST gateway prints it', () => {
  const root = loadProtoRoot(['everything.proto'], FIXTURES);
  const everything = root.lookupType('dmrv.fixture.Everything');
  const inner = lengthDelimited(Writer.create(), 1, INVALID_UTF8).finish();
  const answer = (): Writer => {
    const writer = lengthDelimited(Writer.create(), 14, INVALID_UTF8);
    lengthDelimited(writer, 17, inner);
    lengthDelimited(writer, 18, inner);
    // counts: a map entry whose key is the invalid string.
    lengthDelimited(
      writer,
      21,
      lengthDelimited(Writer.create(), 1, INVALID_UTF8).uint32(16).uint32(7).finish(),
    );
    const any = lengthDelimited(
      Writer.create(),
      1,
      new TextEncoder().encode('type.googleapis.com/dmrv.fixture.Inner'),
    );
    lengthDelimited(writer, 31, lengthDelimited(any, 2, inner).finish());
    return writer;
  };

  it('protobufjs alone refuses the answer (proto3 strings are verified)', () => {
    expect(() => everything.decode(answer().finish())).toThrow(
      'The encoded data was not valid for encoding utf-8',
    );
  });

  it('top level, nested, repeated, map key and inside an Any: each invalid byte is U+FFFD', () => {
    for (const bytes of [answer().finish(), Buffer.from(answer().finish())]) {
      const printed = JSON.parse(
        new JsonPrinter(root).print(everything, decodeAnswer(everything, bytes)),
      ) as Record<string, unknown>;
      expect(printed.a_string).toBe(AS_NODE_PRINTS);
      expect(printed.inner).toEqual({ label: AS_NODE_PRINTS, weight: '0', tint: 'COLOUR_UNSPECIFIED' });
      expect(printed.inners).toEqual([{ label: AS_NODE_PRINTS, weight: '0', tint: 'COLOUR_UNSPECIFIED' }]);
      expect(printed.counts).toEqual({ [AS_NODE_PRINTS]: '7' });
      expect(printed.packed).toEqual({
        '@type': 'type.googleapis.com/dmrv.fixture.Inner',
        label: AS_NODE_PRINTS,
        weight: '0',
        tint: 'COLOUR_UNSPECIFIED',
      });
    }
  });

  it('reads a slice of a larger buffer from its own offset', () => {
    const bytes = answer().finish();
    const padded = new Uint8Array(bytes.length + 8);
    padded.set(bytes, 5);
    const slice = padded.subarray(5, 5 + bytes.length);
    expect(everything.toObject(decodeAnswer(everything, slice))).toEqual(
      everything.toObject(decodeAnswer(everything, bytes)),
    );
  });
});
