import type { AnswerToVerify } from './verify-answer';

/**
 * A saved answer, the archive an auditor keeps: optionally a line naming the request (`GET https://…/v1/…`), then the
 * response exactly as `curl -i` writes it: status line, header lines, an empty line, the content's bytes. Interim
 * 1xx responses curl writes before the final one are skipped.
 */
export class SavedAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SavedAnswerError';
  }
}

const REQUEST_LINE = /^([A-Z][A-Z0-9-]*) (https?:\/\/[^\s]+)$/;
const STATUS_LINE = /^HTTP\/\d(?:\.\d)? (\d{3})(?: .*)?$/;

// Header bytes are ASCII (latin1 at worst); the content stays bytes.
function latin1(bytes: Uint8Array): string {
  let text = '';
  for (let index = 0; index < bytes.length; index += 1) text += String.fromCharCode(bytes[index]!);
  return text;
}

/** Where the line that starts at `start` ends (CRLF or LF), and where the next line starts. */
function lineAt(bytes: Uint8Array, start: number): { text: string; next: number } | undefined {
  const newline = bytes.indexOf(0x0a, start);
  if (newline === -1) return undefined;
  const end = newline > start && bytes[newline - 1] === 0x0d ? newline - 1 : newline;
  return { text: latin1(bytes.subarray(start, end)), next: newline + 1 };
}

interface Head {
  status: number;
  headers: Array<[string, string]>;
  next: number;
}

function readHead(bytes: Uint8Array, start: number): Head {
  const statusLine = lineAt(bytes, start);
  const status = statusLine && STATUS_LINE.exec(statusLine.text);
  if (!statusLine || !status)
    throw new SavedAnswerError('no HTTP status line where the response should start (save it with curl -i)');
  const headers: Array<[string, string]> = [];
  let next = statusLine.next;
  for (;;) {
    const line = lineAt(bytes, next);
    if (line === undefined) throw new SavedAnswerError('the header section does not end with an empty line');
    next = line.next;
    if (line.text === '') return { status: Number(status[1]), headers, next };
    const colon = line.text.indexOf(':');
    if (colon <= 0) throw new SavedAnswerError(`not a header line: ${line.text.slice(0, 80)}`);
    headers.push([line.text.slice(0, colon).trim().toLowerCase(), line.text.slice(colon + 1).trim()]);
  }
}

/**
 * The answer in a saved file. The request comes from the file's first line, or from `request` when the file starts
 * with the response; both present must agree.
 */
export function parseSavedAnswer(
  bytes: Uint8Array,
  request?: { method: string; url: string },
): AnswerToVerify {
  let start = 0;
  let named = request;
  const first = lineAt(bytes, 0);
  const requestLine = first && REQUEST_LINE.exec(first.text);
  if (first && requestLine) {
    const inFile = { method: requestLine[1]!, url: requestLine[2]! };
    if (request && (request.method !== inFile.method || request.url !== inFile.url))
      throw new SavedAnswerError(
        `the file names ${inFile.method} ${inFile.url}, not ${request.method} ${request.url}`,
      );
    named = inFile;
    start = first.next;
  }
  if (named === undefined)
    throw new SavedAnswerError(
      'no request: start the file with a line "GET <absolute URL>", or name the URL',
    );
  let head = readHead(bytes, start);
  while (head.status >= 100 && head.status < 200) head = readHead(bytes, head.next);
  return {
    request: named,
    response: { status: head.status, headers: head.headers, body: bytes.subarray(head.next) },
  };
}
