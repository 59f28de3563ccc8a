import { AsyncLocalStorage } from 'node:async_hooks';
import { Inject, type LoggerService } from '@nestjs/common';
import type { LogFn, Logger as PinoInstance } from 'pino';

/** The logger of the request being served; `RequestLogging.serveWith` binds it, the loggers below write to it. */
export interface RequestLoggerSource {
  readonly logger: PinoInstance;
}

export const requestLoggerStore = new AsyncLocalStorage<RequestLoggerSource>();

type Level = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';

function activeLogger(root: PinoInstance): PinoInstance {
  return requestLoggerStore.getStore()?.logger ?? root;
}

function write(logger: PinoInstance, level: Level, args: unknown[]): void {
  (logger[level] as (...values: unknown[]) => void)(...args);
}

/**
 * Nest's logger (`app.useLogger`), so framework lines and `new Logger(context)` from `@nestjs/common` are pino lines
 * too: `{ context, msg }`, an `Error` as `err`. Writes to the request's logger while one is served.
 */
export class Logger implements LoggerService {
  constructor(private readonly root: PinoInstance) {}

  verbose(message: unknown, ...optionalParams: unknown[]): void {
    this.call('trace', message, optionalParams);
  }

  debug(message: unknown, ...optionalParams: unknown[]): void {
    this.call('debug', message, optionalParams);
  }

  log(message: unknown, ...optionalParams: unknown[]): void {
    this.call('info', message, optionalParams);
  }

  warn(message: unknown, ...optionalParams: unknown[]): void {
    this.call('warn', message, optionalParams);
  }

  error(message: unknown, ...optionalParams: unknown[]): void {
    this.call('error', message, optionalParams);
  }

  fatal(message: unknown, ...optionalParams: unknown[]): void {
    this.call('fatal', message, optionalParams);
  }

  private call(level: Level, message: unknown, optionalParams: unknown[]): void {
    const logger = activeLogger(this.root);
    // Nest passes the context last.
    const fields: Record<string, unknown> = {};
    let params = optionalParams;
    if (optionalParams.length > 0) {
      fields.context = optionalParams[optionalParams.length - 1];
      params = optionalParams.slice(0, -1);
    }
    if (level === 'error' && typeof message === 'string' && isStackOnly(params)) {
      // Nest's own exception handlers call error(message, stack, context).
      const err = new Error(message);
      err.stack = params[0] as string;
      write(logger, level, [{ ...fields, err }]);
    } else {
      write(logger, level, withFields(fields, [message, ...params]));
    }
  }
}

/** pino's arguments with `fields` merged into the first: an `Error` becomes `err`, an object is spread. */
function withFields(fields: Record<string, unknown>, args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (first instanceof Error) return [{ ...fields, err: first }, ...rest];
  if (typeof first === 'object' && first !== null) return [{ ...fields, ...first }, ...rest];
  return [fields, ...args];
}

function isStackOnly(params: unknown[]): boolean {
  return params.length === 1 && typeof params[0] === 'string' && /\n\s*at /.test(params[0]);
}

/**
 * pino's call shapes with `context` on every line (what `@InjectPinoLogger(context)` gives a service); writes to
 * the request's logger while one is served.
 */
export class PinoLogger {
  constructor(
    private readonly root: PinoInstance,
    private readonly context = '',
  ) {}

  get logger(): PinoInstance {
    return activeLogger(this.root);
  }

  readonly trace: LogFn = (...args: unknown[]) => this.call('trace', args);
  readonly debug: LogFn = (...args: unknown[]) => this.call('debug', args);
  readonly info: LogFn = (...args: unknown[]) => this.call('info', args);
  readonly warn: LogFn = (...args: unknown[]) => this.call('warn', args);
  readonly error: LogFn = (...args: unknown[]) => this.call('error', args);
  readonly fatal: LogFn = (...args: unknown[]) => this.call('fatal', args);

  private call(level: Level, args: unknown[]): void {
    write(this.logger, level, this.context ? withFields({ context: this.context }, args) : args);
  }
}

// Filled as classes are decorated, read by LoggingModule.forRoot: one provider per context.
const injectedContexts = new Set<string>();

export function pinoLoggerToken(context: string): string {
  return `PinoLogger:${context}`;
}

/** Injects a `PinoLogger` whose lines carry `context`. */
export function InjectPinoLogger(context: string): ParameterDecorator {
  injectedContexts.add(context);
  return Inject(pinoLoggerToken(context));
}

export function injectedPinoLoggerContexts(): readonly string[] {
  return [...injectedContexts];
}
