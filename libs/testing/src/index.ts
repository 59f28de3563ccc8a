export * from './environment';
export * from './database';
export * from './redis';
export * from './network';
export * from './fault-proxy';
