export * from './with-deadline';
