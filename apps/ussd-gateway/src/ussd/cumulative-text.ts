/**
 * Aggregators send `text` as every input of the session joined by `*`. A subscriber who types `*` (exit) adds an
 * empty segment pair (`1**`), so splitting on `*` alone would read it as two empty inputs: a `*` typed as input is
 * recognised as two consecutive separators.
 */
export function splitInputs(joined: string): string[] {
  const segments = joined.split('*');
  const inputs: string[] = [];
  for (let index = 0; index < segments.length; index += 1) {
    if (segments[index] === '' && index + 1 < segments.length && segments[index + 1] === '') {
      inputs.push('*');
      index += 1;
    } else {
      inputs.push(segments[index]!);
    }
  }
  return inputs;
}

export type DerivedInputs = { kind: 'inputs'; inputs: string[] } | { kind: 'outOfStep' };

/**
 * The inputs a request adds to what the session has already consumed. Never "the last segment": a hop may carry
 * more than one new input (a dial-string shortcut on the first request), and an input may itself be `*`.
 */
export function deriveNewInputs(consumedText: string | null, text: string): DerivedInputs {
  if (consumedText === null) return { kind: 'inputs', inputs: text === '' ? [] : splitInputs(text) };
  if (text === consumedText) return { kind: 'inputs', inputs: [] };
  if (consumedText === '') return { kind: 'inputs', inputs: splitInputs(text) };
  if (text.startsWith(`${consumedText}*`)) return { kind: 'inputs', inputs: splitInputs(text.slice(consumedText.length + 1)) };
  return { kind: 'outOfStep' };
}
