export * from './memory-rate-limit.storage';
export * from './admission-gate';
