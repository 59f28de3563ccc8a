export { httpExecutionContext } from './http-execution-context';
export * from './create-http-app';
export {
  FRAMEWORK_ERROR_MESSAGES,
  type FrameworkAnswer,
  type FrameworkAnswerHeaders,
} from './framework-errors';
export * from './run-service';
export * from './validation';
