export * from './domain-error';
export * from './normalize';
export * from './error-renderer';
export * from './app-exception.filter';
