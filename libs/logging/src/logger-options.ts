import {
  pino,
  transport,
  type DestinationStream,
  type Logger as PinoInstance,
  type LoggerOptions,
} from 'pino';
import { stdoutDestination } from './stdout-destination';

export interface ServiceLoggingOptions {
  service: string;
  level: string;
  pretty: boolean;
  /** Paths whose requests are not logged (probes hit them every few seconds). */
  quietPaths?: string[];
  /** Extra redaction paths on top of the defaults. */
  redact?: string[];
  /** Where log lines go; stdout when omitted (tests pass a stream to read them). */
  destination?: DestinationStream;
}

/** Headers and fields that may carry credentials or subscriber input; never written to a log. */
export const DEFAULT_REDACTIONS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-operator-token"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  // `*.x` matches one level down only, so the top-level field is named too.
  'pin',
  'newPin',
  'oldPin',
  'password',
  'secret',
  'text',
  '*.pin',
  '*.newPin',
  '*.oldPin',
  '*.password',
  '*.secret',
  '*.text',
];

export const DEFAULT_QUIET_PATHS = ['/health', '/health/live', '/health/ready', '/'];

/** The two loggers of a service: one for everything the code logs, one for the per-request access line. */
export interface ServiceLoggers {
  /** Redacts `DEFAULT_REDACTIONS` (+ the service's own) from every line. */
  root: PinoInstance;
  /**
   * Writes only the access line, whose fields the HTTP layer builds itself from method, path, user agent and
   * status, so it skips redaction: redacting `*.pin`-style wildcards walks every field of every line and was
   * two thirds of the cost of writing it.
   */
  access: PinoInstance;
  quietPaths: ReadonlySet<string>;
}

export function createServiceLoggers(options: ServiceLoggingOptions): ServiceLoggers {
  // pino-pretty runs as one transport (its own thread) shared by both loggers.
  const stream =
    options.destination ??
    (options.pretty
      ? transport({ target: 'pino-pretty', options: { singleLine: true, translateTime: 'SYS:HH:MM:ss.l' } })
      : stdoutDestination());
  const common: LoggerOptions = {
    name: options.service,
    level: options.level,
    base: { service: options.service },
  };
  return {
    root: pino(
      {
        ...common,
        redact: { paths: [...DEFAULT_REDACTIONS, ...(options.redact ?? [])], censor: '[redacted]' },
      },
      stream,
    ),
    access: pino(common, stream),
    quietPaths: new Set(options.quietPaths ?? DEFAULT_QUIET_PATHS),
  };
}
