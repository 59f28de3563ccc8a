import { stdTimeFunctions, symbols, type Logger as PinoInstance } from 'pino';

/** A request as the HTTP layer answered it: what its access line is written from. */
export interface CompletedRequest {
  requestId: string;
  method: string;
  /** Path and query as the client sent them; only the path is written (a query may carry a PIN or a token). */
  url: string;
  /** The client's address, as the app's trust-proxy settings resolve it. */
  client: string | undefined;
  /** The authenticated client, when the app identified one: an id, never a credential. */
  clientId?: string | undefined;
  userAgent: string | undefined;
  statusCode: number;
  responseTimeMs: number;
}

// What pino keeps on a logger to write a line: the level prefix per level number, the time function, the bindings
// of the logger (service, name), the line's end, the destination and the current level. Public, typed symbols of
// pino's API.
interface PinoLineParts {
  [symbols.lsCacheSym]: Record<number, string>;
  [symbols.timeSym]: () => string;
  [symbols.chindingsSym]: string;
  [symbols.endSym]: string;
  [symbols.streamSym]: { write(line: string): unknown };
  [symbols.levelValSym]: number;
}

const INFO = 30;
const ERROR = 50;

/** A finite number as JSON writes it; `null` otherwise, as pino writes a non-finite number. */
export function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/**
 * Whether `value` is only printable ASCII other than `"` and `\`: quoted as it is, it is what `JSON.stringify` and
 * pino's own string writer both make of it. Request ids always are (ours are UUIDs, a caller's passed
 * `ACCEPTABLE_REQUEST_ID`), and so are methods, addresses and most paths.
 */
function isPlain(value: string): boolean {
  for (let index = 0; index < value.length; index += 1) {
    const code = value.charCodeAt(index);
    // 0x22 is `"`, 0x5c is `\`; below 0x20 is escaped; above 0x7e only lone surrogates are, but one comparison does.
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) return false;
  }
  return true;
}

// Longer strings go straight to JSON.stringify: its one native pass beats a character loop from about this length.
const SHORT_STRING = 48;

/** A string as `JSON.stringify` writes it (pino writes the strings of `req` so), without the call when it can. */
export function jsonString(value: string): string {
  return value.length <= SHORT_STRING && isPlain(value) ? '"' + value + '"' : JSON.stringify(value);
}

// `},"res":{"statusCode":N},"responseTime":` (the end of `req` to the latency) for every status a server sends.
const STATUS_PARTS: string[] = [];
for (let status = 100; status < 600; status += 1) {
  STATUS_PARTS[status] = `},"res":{"statusCode":${status}},"responseTime":`;
}

// What `String(n / 100)` ends with after the whole part, for `n % 100` from 0 to 99: '', '.01' … '.1', '.11' …
const HUNDREDTHS: string[] = [];
for (let hundredths = 0; hundredths < 100; hundredths += 1) {
  HUNDREDTHS[hundredths] = String(hundredths / 100).slice(1);
}

// Below this many hundredths, `n / 100` has at most 15 significant digits, so it round-trips through a double and
// `String(n / 100)` writes exactly its decimal digits.
const EXACT_HUNDREDTHS = 1e15;

/**
 * A latency in milliseconds rounded to hundredths, as `jsonNumber(Math.round(ms * 100) / 100)` writes it: from the
 * integer of hundredths and a table, instead of a double's shortest-digits conversion.
 */
export function jsonMilliseconds(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (hundredths >= 0 && hundredths < EXACT_HUNDREDTHS) {
    const fraction = hundredths % 100;
    return String((hundredths - fraction) / 100) + HUNDREDTHS[fraction]!;
  }
  return jsonNumber(hundredths / 100);
}

/**
 * `String(ms)` for a time in milliseconds since 1970, from two small integers: the number-to-text conversion of a
 * double this large was most of the cost of a line's time stamp.
 */
export function epochMillisText(ms: number): string {
  if (Number.isInteger(ms) && ms >= 1e6 && ms <= Number.MAX_SAFE_INTEGER) {
    const millions = Math.floor(ms / 1e6);
    // The last six digits, zero-padded: 1e6 + n is written with a leading 1 that is cut off.
    return String(millions) + String(ms - millions * 1e6 + 1e6).slice(1);
  }
  return String(ms);
}

const COMPLETED_MSG = ',"msg":"request completed"';
const ERRORED_MSG = ',"msg":"request errored"';

/**
 * Writes the access line of a request with the bytes `logger.info({ requestId, req, res, responseTime }, msg)`
 * would write, built in one string instead. pino's generic path (a key loop, a type switch per field, a nested
 * `JSON.stringify` for `req` and `res`) cost ~3 µs of a ~30 µs request on the framework reference
 * (docs/performance.md, round two). The line's start (level, time, bindings) is made once per millisecond, the
 * level check once per level change, and strings that need no escaping skip `JSON.stringify`
 * (docs/performance.md, round two, second pass). `access-line.spec.ts` holds the bytes equal to pino's.
 *
 * Only for the access logger of `createServiceLoggers`: no redaction, serializers, mixin or formatters, which this
 * does not apply.
 */
export class AccessLineWriter {
  private readonly parts: PinoLineParts;

  // The logger's level value when `infoEnabled`/`errorEnabled` were last asked of pino.
  private levelVal = Number.NaN;
  private infoEnabled = false;
  private errorEnabled = false;

  // The line starts of the millisecond `startTime`, for the bindings and level prefixes they were made from.
  private startTime = Number.NaN;
  private startChindings = '';
  private startLevels: Record<number, string> | undefined;
  private infoStart = '';
  private errorStart = '';

  constructor(private readonly logger: PinoInstance) {
    this.parts = logger as unknown as PinoLineParts;
  }

  /** The line of `request`, whose `path` (its URL without the query) the caller has already cut. */
  write(request: CompletedRequest, path: string): void {
    const statusCode = request.statusCode;
    // A 5xx is what an operator looks for first; its cause was logged at error by the exception filter.
    const error = statusCode >= 500;
    const parts = this.parts;
    const levelVal = parts[symbols.levelValSym];
    if (levelVal !== this.levelVal) {
      this.infoEnabled = this.logger.isLevelEnabled('info');
      this.errorEnabled = this.logger.isLevelEnabled('error');
      this.levelVal = levelVal;
    }
    if (!(error ? this.errorEnabled : this.infoEnabled)) return;
    const requestId = request.requestId;
    // pino writes a top-level string its own way (before Node 25 a lone surrogate is left as it is, where
    // JSON.stringify escapes it): an id that is not plain, which neither resolveRequestId nor a caller it accepts
    // makes, takes pino's own path, so the bytes stay pino's.
    if (!isPlain(requestId)) {
      this.writeThroughPino(request, path, error);
      return;
    }
    let line =
      this.start(error) +
      ',"requestId":"' +
      requestId +
      '","req":{"method":' +
      jsonString(request.method) +
      ',"path":' +
      jsonString(path);
    const { client, clientId, userAgent } = request;
    if (client !== undefined) line += ',"client":' + jsonString(client);
    if (clientId !== undefined) line += ',"clientId":' + jsonString(clientId);
    if (userAgent !== undefined) line += ',"userAgent":' + jsonString(userAgent);
    line +=
      (STATUS_PARTS[statusCode] ?? `},"res":{"statusCode":${jsonNumber(statusCode)}},"responseTime":`) +
      jsonMilliseconds(request.responseTimeMs) +
      (error ? ERRORED_MSG : COMPLETED_MSG) +
      parts[symbols.endSym];
    parts[symbols.streamSym].write(line);
  }

  private writeThroughPino(request: CompletedRequest, path: string, error: boolean): void {
    const line = {
      requestId: request.requestId,
      req: {
        method: request.method,
        path,
        client: request.client,
        clientId: request.clientId,
        userAgent: request.userAgent,
      },
      res: { statusCode: request.statusCode },
      responseTime: Math.round(request.responseTimeMs * 100) / 100,
    };
    if (error) this.logger.error(line, 'request errored');
    else this.logger.info(line, 'request completed');
  }

  /** `{"level":N,"time":T,"service":…,"name":…`: what pino writes before a line's own fields. */
  private start(error: boolean): string {
    const parts = this.parts;
    const levels = parts[symbols.lsCacheSym];
    const chindings = parts[symbols.chindingsSym];
    const time = parts[symbols.timeSym];
    if (time !== stdTimeFunctions.epochTime) return levels[error ? ERROR : INFO]! + time() + chindings;
    const now = Date.now();
    if (now !== this.startTime || chindings !== this.startChindings || levels !== this.startLevels) {
      const stamp = ',"time":' + epochMillisText(now);
      this.infoStart = levels[INFO]! + stamp + chindings;
      this.errorStart = levels[ERROR]! + stamp + chindings;
      this.startTime = now;
      this.startChindings = chindings;
      this.startLevels = levels;
    }
    return error ? this.errorStart : this.infoStart;
  }
}
