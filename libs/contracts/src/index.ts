export * from './errors';
export * from './health';
export * from './registry';
export * from './ussd';
export * from './protocol';
export * from './openapi';
