import { uniqueTokens } from './unique-tokens';

describe('uniqueTokens', () => {
  it('never repeats a token, within one source or across sources', () => {
    const first = uniqueTokens();
    const second = uniqueTokens();
    const tokens = [...Array.from({ length: 1000 }, first), ...Array.from({ length: 1000 }, second)];
    expect(new Set(tokens).size).toBe(2000);
  });
});
