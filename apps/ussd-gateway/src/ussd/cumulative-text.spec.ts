import { deriveNewInputs, splitInputs } from './cumulative-text';

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
    expect(deriveNewInputs('2*2*Jane Smith', '2*2*Jane Smith*00')).toEqual({ kind: 'inputs', inputs: ['00'] });
    expect(deriveNewInputs('1', '1**')).toEqual({ kind: 'inputs', inputs: ['*'] });
    expect(deriveNewInputs('1*2', '1*2')).toEqual({ kind: 'inputs', inputs: [] });
  });

  it('reports text that does not continue the session', () => {
    expect(deriveNewInputs('1*2', '2*1')).toEqual({ kind: 'outOfStep' });
    expect(deriveNewInputs('1*2', '1*23')).toEqual({ kind: 'outOfStep' });
  });
});
