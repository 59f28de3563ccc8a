import { createHash } from 'node:crypto';
import { deriveNewInputs as derive, markOf, splitInputs } from './cumulative-text';

const digest = (text: string): string => createHash('sha256').update(text).digest('hex');
const deriveNewInputs = (consumed: string | null, text: string) => {
  const derived = derive(consumed === null ? null : markOf(consumed, digest), text, digest);
  return derived.kind === 'inputs'
    ? { kind: 'inputs', inputs: derived.inputs.map((input) => input.value) }
    : derived;
};
/** Each new input with the text up to and including it (what the idempotency key of its effects is made from). */
const prefixes = (consumed: string | null, text: string) => {
  const derived = derive(consumed === null ? null : markOf(consumed, digest), text, digest);
  return derived.kind === 'inputs'
    ? derived.inputs.map((input) => [input.value, text.slice(0, input.through)])
    : [];
};

describe('cumulative text', () => {
  it.each([
    ['1', ['1']],
    ['1*2', ['1', '2']],
    ['1*2*Jane Smith', ['1', '2', 'Jane Smith']],
    ['*', ['*']],
    ['1**', ['1', '*']],
    ['1*00*2', ['1', '00', '2']],
    ['1*', ['1', '']],
  ])('splits %j into %j', (text, inputs) => {
    expect(splitInputs(text)).toEqual(inputs);
  });

  it('takes only what follows the consumed text, whatever the last segment is', () => {
    expect(deriveNewInputs(null, '')).toEqual({ kind: 'inputs', inputs: [] });
    expect(deriveNewInputs(null, '2*2')).toEqual({ kind: 'inputs', inputs: ['2', '2'] });
    expect(deriveNewInputs('', '1')).toEqual({ kind: 'inputs', inputs: ['1'] });
    expect(deriveNewInputs('2*2*Jane Smith', '2*2*Jane Smith*00')).toEqual({
      kind: 'inputs',
      inputs: ['00'],
    });
    expect(deriveNewInputs('1', '1**')).toEqual({ kind: 'inputs', inputs: ['*'] });
    expect(deriveNewInputs('1*2', '1*2')).toEqual({ kind: 'inputs', inputs: [] });
  });

  it('says where each new input ends in the whole text', () => {
    expect(prefixes(null, '2*2*Jane')).toEqual([
      ['2', '2'],
      ['2', '2*2'],
      ['Jane', '2*2*Jane'],
    ]);
    expect(prefixes('2*2', '2*2*Jane*00')).toEqual([
      ['Jane', '2*2*Jane'],
      ['00', '2*2*Jane*00'],
    ]);
    expect(prefixes('1', '1**')).toEqual([['*', '1**']]);
    expect(prefixes('1', '1***2')).toEqual([
      ['*', '1**'],
      ['2', '1***2'],
    ]);
    expect(prefixes('', '1*')).toEqual([
      ['1', '1'],
      ['', '1*'],
    ]);
  });

  it('keeps neither the consumed text nor its inputs', () => {
    expect(JSON.stringify(markOf('2*2*Jane*00*24680', digest))).not.toContain('24680');
  });

  it('reports text that does not continue the session', () => {
    expect(deriveNewInputs('1*2', '2*1')).toEqual({ kind: 'outOfStep' });
    expect(deriveNewInputs('1*2', '1*23')).toEqual({ kind: 'outOfStep' });
    expect(deriveNewInputs('1*2', '1*3*4')).toEqual({ kind: 'outOfStep' });
  });
});
