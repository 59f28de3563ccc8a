export { startLocalChainNode, selectorMatches, EXTRA_MODULES } from './chain-node';
export type { ExtraModule, LocalChainNode, LocalChainNodeOptions } from './chain-node';
export type { AdvertisedDescriptors } from './reflection';
export { optionsFromEnv, ChainNodeConfigError } from './options';
export { buildSeed, entityDid, agentDid, agentAddress, SEED_COUNTS } from './seed';
export type { SeedData } from './seed';
export { paginate, DEFAULT_LIMIT, ChainNodeError } from './paginate';
