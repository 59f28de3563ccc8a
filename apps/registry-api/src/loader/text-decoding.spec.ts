import fc from 'fast-check';
import { DecodedText, incompleteTail, StrictTextDecoder } from './text-decoding';

function decode(chunks: Uint8Array[]): DecodedText {
  const decoder = new StrictTextDecoder();
  let text = '';
  for (const chunk of chunks) {
    const decoded = decoder.push(chunk);
    if (!decoded.ok) return decoded;
    text += decoded.text;
  }
  const last = decoder.end();
  return last.ok ? { ok: true, text: text + last.text } : last;
}

/** Splits bytes at the given cut points (inside a character too). */
function cut(bytes: Uint8Array, points: number[]): Uint8Array[] {
  const sorted = [...new Set(points.map((point) => point % (bytes.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let start = 0;
  for (const point of sorted) {
    chunks.push(bytes.subarray(start, point));
    start = point;
  }
  chunks.push(bytes.subarray(start));
  return chunks;
}

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const NOT_UTF8 = (byte: string): string =>
  `not UTF-8 text (byte 0x${byte} cannot stand there): save the file as UTF-8`;

describe('StrictTextDecoder', () => {
  it('decodes UTF-8 cut anywhere, a character across chunks included', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }).filter((text) => !text.includes('\0')),
        fc.array(fc.nat()),
        (text, points) => {
          expect(decode(cut(utf8(text), points))).toEqual({ ok: true, text });
        },
      ),
    );
  });

  it.each<[string, Uint8Array, DecodedText]>([
    [
      'a Latin-1 é before a comma',
      Buffer.concat([utf8('a\nb\nKafu'), Uint8Array.of(0xe9), utf8(',x\n')]),
      { ok: false, line: 3, rule: NOT_UTF8('E9') },
    ],
    [
      'a stray continuation byte',
      Buffer.concat([utf8('a\n'), Uint8Array.of(0x80)]),
      { ok: false, line: 2, rule: NOT_UTF8('80') },
    ],
    [
      'a character cut off by the end of the file',
      Buffer.concat([utf8('a\nb\n'), Uint8Array.of(0xe2, 0x82)]),
      { ok: false, line: 3, rule: NOT_UTF8('E2') },
    ],
    [
      'an overlong encoding of /',
      Buffer.concat([utf8('a\n'), Uint8Array.of(0xc0, 0xaf)]),
      { ok: false, line: 2, rule: NOT_UTF8('C0') },
    ],
    [
      'a NUL byte',
      utf8('a\nb\nc\0d\n'),
      {
        ok: false,
        line: 3,
        rule: 'holds a NUL byte (0x00), which no text file does: is it UTF-16 or binary?',
      },
    ],
    [
      'a UTF-16 byte order mark',
      Uint8Array.of(0xff, 0xfe, 0x61, 0x00),
      { ok: false, line: 1, rule: NOT_UTF8('FF') },
    ],
  ])('refuses %s at its line', (_, bytes, expected) => {
    expect(decode([bytes])).toEqual(expected);
    expect(decode(cut(bytes, [1, 3, 5, 8]))).toEqual(expected);
  });

  it('counts the bytes that begin a character the next chunk completes', () => {
    expect(incompleteTail(utf8('ab'))).toBe(0);
    expect(incompleteTail(utf8('a€').subarray(0, 3))).toBe(2);
    expect(incompleteTail(utf8('a€'))).toBe(0);
    expect(incompleteTail(utf8('😀').subarray(0, 1))).toBe(1);
  });
});
