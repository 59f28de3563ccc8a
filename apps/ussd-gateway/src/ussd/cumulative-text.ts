import type { ConsumedMark } from '../sessions/session-store';
/**
 * Aggregators send `text` as every input of the session joined by `*`. A subscriber who types `*` (exit) adds an
 * empty segment pair (`1**`), so splitting on `*` alone would read it as two empty inputs: a `*` typed as input is
 * recognised as two consecutive separators.
 */
export function splitInputs(joined: string): string[] {
  return inputsOf(joined, 0).map((input) => input.value);
}

/** One input of the cumulative text, and where it ends: `text.slice(0, through)` is the text up to and including it. */
export interface PositionedInput {
  value: string;
  through: number;
}

/** The inputs of `joined`, itself found at `offset` in the whole text, with their end positions in the whole text. */
function inputsOf(joined: string, offset: number): PositionedInput[] {
  const segments = joined.split('*');
  const inputs: PositionedInput[] = [];
  let end = offset - 1;
  for (let index = 0; index < segments.length; index += 1) {
    if (segments[index] === '' && index + 1 < segments.length && segments[index + 1] === '') {
      end += 2;
      inputs.push({ value: '*', through: end });
      index += 1;
    } else {
      end += segments[index]!.length + 1;
      inputs.push({ value: segments[index]!, through: end });
    }
  }
  return inputs;
}

export type DerivedInputs = { kind: 'inputs'; inputs: PositionedInput[] } | { kind: 'outOfStep' };

export type { ConsumedMark };

export type TextDigest = (text: string) => string;

export function markOf(text: string, digest: TextDigest): ConsumedMark {
  return { length: text.length, digest: digest(text) };
}

/**
 * The inputs a request adds to what the session has already consumed. Never "the last segment": a hop may carry
 * more than one new input (a dial-string shortcut on the first request), and an input may itself be `*`.
 */
export function deriveNewInputs(
  consumed: ConsumedMark | null,
  text: string,
  digest: TextDigest,
): DerivedInputs {
  if (consumed === null) return { kind: 'inputs', inputs: text === '' ? [] : inputsOf(text, 0) };
  if (text.length === consumed.length && digest(text) === consumed.digest)
    return { kind: 'inputs', inputs: [] };
  if (consumed.length === 0) return { kind: 'inputs', inputs: inputsOf(text, 0) };
  const continues =
    text.length > consumed.length &&
    text[consumed.length] === '*' &&
    digest(text.slice(0, consumed.length)) === consumed.digest;
  return continues
    ? { kind: 'inputs', inputs: inputsOf(text.slice(consumed.length + 1), consumed.length + 1) }
    : { kind: 'outOfStep' };
}
