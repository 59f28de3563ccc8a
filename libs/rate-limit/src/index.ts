export * from './memory-rate-limit.storage';
