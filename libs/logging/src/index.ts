export * from './request-id';
export * from './logger-options';
export * from './request-logging';
export * from './logging.module';
export { InjectPinoLogger, Logger, PinoLogger } from './service-logger';
