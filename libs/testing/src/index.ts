export * from './environment';
export * from './database';
export * from './redis';
export * from './network';
export * from './fault-proxy';
export * from './prometheus';
export * from './otlp-receiver';
export * from './postgres-cluster';
