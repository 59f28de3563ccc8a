import { bytesFromBase64, parseDuration } from './values';

describe('bytesFromBase64', () => {
  it.each([
    ['standard, padded', 'dWl4bw==', 'uixo'],
    ['unpadded', 'dWl4bw', 'uixo'],
    ['URL-safe', '-_8', '\xfb\xff'],
    ['empty', '', ''],
  ])('%s', (_case, text, binary) => {
    expect(Array.from(bytesFromBase64(text))).toEqual(Array.from(binary, (c) => c.charCodeAt(0)));
  });
});

describe('parseDuration', () => {
  it.each([
    ['3600s', 3600n, 0],
    ['604800s', 604800n, 0],
    ['1.5s', 1n, 500_000_000],
    ['0.000000001s', 0n, 1],
    ['-1.25s', -1n, -250_000_000],
    ['-0.5s', 0n, -500_000_000],
    ['0s', 0n, 0],
    ['315576000000s', 315_576_000_000n, 0],
  ])('%s', (text, seconds, nanos) => {
    expect(parseDuration(text)).toEqual({ seconds, nanos });
  });

  it.each(['3600', '1h', '1.0000000001s', ' 1s', '', 's'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(SyntaxError);
  });
});
