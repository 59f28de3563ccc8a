export * from './create-http-app';
export * from './run-service';
export * from './validation';
