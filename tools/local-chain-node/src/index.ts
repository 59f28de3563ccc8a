export { startLocalChainNode, selectorMatches } from './chain-node';
export type { LocalChainNode, LocalChainNodeOptions } from './chain-node';
export { optionsFromEnv, ChainNodeConfigError } from './options';
export { buildSeed, entityDid, agentDid, SEED_COUNTS } from './seed';
export type { SeedData } from './seed';
export { paginate, DEFAULT_LIMIT, ChainNodeError } from './paginate';
