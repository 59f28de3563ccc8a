export * from './embedded-postgres';
export * from './spawn';
