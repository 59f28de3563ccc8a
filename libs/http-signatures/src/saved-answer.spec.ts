import { parseSavedAnswer, SavedAnswerError } from './saved-answer';

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const URL_ = 'http://registry.test/v1/hello';

describe('parseSavedAnswer', () => {
  it('reads the request line, the response as curl -i writes it, and the content as bytes', () => {
    const answer = parseSavedAnswer(
      encode(
        `GET ${URL_}\nHTTP/1.1 200 OK\r\nContent-Type: application/json\r\nX-A: 1\r\nx-a: 2\r\n\r\n{"a":"é"}\r\n`,
      ),
    );
    expect(answer.request).toEqual({ method: 'GET', url: URL_ });
    expect(answer.response.status).toBe(200);
    expect(answer.response.headers).toEqual([
      ['content-type', 'application/json'],
      ['x-a', '1'],
      ['x-a', '2'],
    ]);
    expect(new TextDecoder().decode(answer.response.body)).toBe('{"a":"é"}\r\n');
  });

  it('takes the request from the caller when the file starts with the response, and skips interim 1xx responses', () => {
    const answer = parseSavedAnswer(
      encode('HTTP/1.1 100 Continue\r\n\r\nHTTP/2 404\r\ncontent-length: 0\r\n\r\n'),
      { method: 'GET', url: URL_ },
    );
    expect(answer).toEqual({
      request: { method: 'GET', url: URL_ },
      response: { status: 404, headers: [['content-length', '0']], body: new Uint8Array() },
    });
  });

  it.each([
    [
      'no request named',
      'HTTP/1.1 200 OK\r\n\r\n',
      undefined,
      'no request: start the file with a line "GET <absolute URL>", or name the URL',
    ],
    [
      'a request that differs from the one named',
      `GET ${URL_}\nHTTP/1.1 200 OK\r\n\r\n`,
      { method: 'GET', url: `${URL_}x` },
      `the file names GET ${URL_}, not GET ${URL_}x`,
    ],
    [
      'no status line',
      `GET ${URL_}\n{"a":1}\n`,
      undefined,
      'no HTTP status line where the response should start (save it with curl -i)',
    ],
    [
      'headers without their end',
      `GET ${URL_}\nHTTP/1.1 200 OK\r\nA: 1`,
      undefined,
      'the header section does not end with an empty line',
    ],
  ])('refuses %s', (_what, text, request, message) => {
    expect(() => parseSavedAnswer(encode(text), request)).toThrow(new SavedAnswerError(message));
  });
});
