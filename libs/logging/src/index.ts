export * from './request-id';
export * from './logger-options';
export * from './logging.module';
export { Logger, PinoLogger, InjectPinoLogger } from 'nestjs-pino';
