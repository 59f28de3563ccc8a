/**
 * Bytes of a data file to text, refusing what is not UTF-8 text instead of storing U+FFFD in the registry (a
 * Latin-1 `Kafué` would otherwise load as `Kafu�`, and every reload would keep it). A NUL is refused here too: no
 * text file holds one (a UTF-16 file is full of them) and PostgreSQL cannot store it in text. A refusal names the
 * physical line of the byte at fault, counted in line feeds from 1.
 */
export type DecodedText = { ok: true; text: string } | { ok: false; line: number; rule: string };

const LF = 0x0a;

/** Bytes at the end of `bytes` that begin a multi-byte character the next chunk completes. */
export function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back]!;
    if ((byte & 0xc0) === 0x80) continue;
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

function countLineFeeds(bytes: Uint8Array, end: number): number {
  let count = 0;
  for (let at = bytes.indexOf(LF); at !== -1 && at < end; at = bytes.indexOf(LF, at + 1)) count += 1;
  return count;
}

export class StrictTextDecoder {
  private carry: Uint8Array = new Uint8Array(0);
  private linesBefore = 0;
  private failed = false;

  /** Text of the chunk; a character cut at its end is held back until the next chunk (or `end()`). */
  push(chunk: Uint8Array): DecodedText {
    if (this.failed) return { ok: true, text: '' };
    const bytes = this.carry.length === 0 ? chunk : Buffer.concat([this.carry, chunk]);
    const whole = bytes.length - incompleteTail(bytes);
    this.carry = new Uint8Array(bytes.subarray(whole));
    return this.decode(bytes.subarray(0, whole));
  }

  /** The input is complete: a character still cut short is not UTF-8. */
  end(): DecodedText {
    if (this.failed || this.carry.length === 0) return { ok: true, text: '' };
    const rest = this.carry;
    this.carry = new Uint8Array(0);
    return this.decode(rest);
  }

  private decode(bytes: Uint8Array): DecodedText {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      const at = firstInvalidByte(bytes);
      return this.fail(
        bytes,
        at,
        `not UTF-8 text (byte 0x${bytes[at]!.toString(16).toUpperCase().padStart(2, '0')} cannot stand there): save the file as UTF-8`,
      );
    }
    const nul = bytes.indexOf(0);
    if (nul !== -1)
      return this.fail(
        bytes,
        nul,
        'holds a NUL byte (0x00), which no text file does: is it UTF-16 or binary?',
      );
    this.linesBefore += countLineFeeds(bytes, bytes.length);
    return { ok: true, text };
  }

  private fail(bytes: Uint8Array, at: number, rule: string): DecodedText {
    this.failed = true;
    return { ok: false, line: this.linesBefore + countLineFeeds(bytes, at) + 1, rule };
  }
}

/**
 * The offset of the first byte of the first sequence that is not UTF-8: the longest prefix a streaming decoder
 * accepts (a prefix may end inside a character) ends at or inside it. Runs only on bytes already refused.
 */
function firstInvalidByte(bytes: Uint8Array): number {
  const accepts = (length: number): boolean => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, length), { stream: true });
      return true;
    } catch {
      return false;
    }
  };
  if (accepts(bytes.length)) return bytes.length - Math.max(1, incompleteTail(bytes));
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = (good + bad) >>> 1;
    if (accepts(middle)) good = middle;
    else bad = middle;
  }
  // The byte that broke the text may follow the start of a character it should have continued: name that start.
  return bad - 1 - incompleteTail(bytes.subarray(0, bad - 1));
}
