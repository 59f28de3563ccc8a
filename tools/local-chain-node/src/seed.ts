import { address, legacyDecWire, Plain, SEED_COUNTS } from './seed-values';
import { seedClaims, seedCollections, seedDisputes, seedIntents } from './seed-claims';
import { seedEntities } from './seed-entities';
import { seedTokens } from './seed-tokens';

// A deterministic data set: the same ids, dates and amounts on every start, so tests, the README and the
// benchmarks can name records. Shapes are plain objects with the proto field names (protobufjs fromObject input).

export { agentAddress, agentDid, entityDid, legacyDecWire, SEED_COUNTS, type Timestamp } from './seed-values';

export interface SeedData {
  blockHeight: number;
  entityParams: Plain;
  claimsParams: Plain;
  tokenParams: Plain;
  /** Sorted by `id`, like the chain's KV store iterates them. */
  entities: Plain[];
  iidDocuments: Plain[];
  collections: Plain[];
  claims: Plain[];
  disputes: Plain[];
  intents: Plain[];
  tokens: Plain[];
  tokenMetadata: Map<string, Plain>;
}

function byKey(key: string): (a: Plain, b: Plain) => number {
  return (a, b) => (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0);
}

export function buildSeed(): SeedData {
  const { entities, iidDocuments } = seedEntities();
  // Claims and intents are spread over the collections in seeding order, disputes over the claims: sorted last.
  const collections = seedCollections();
  const claims = seedClaims(collections);
  const disputes = seedDisputes(claims);
  const intents = seedIntents(collections);
  const { tokens, tokenMetadata } = seedTokens();
  return {
    blockHeight: 4_200_000,
    entityParams: {
      nftContractAddress: address('entity-nft'),
      nftContractMinter: address('entity-module'),
      createSequence: String(SEED_COUNTS.entities),
    },
    claimsParams: {
      collection_sequence: String(SEED_COUNTS.collections + 1),
      ixo_account: address('ixo-network'),
      network_fee_percentage: legacyDecWire(15, 1),
      node_fee_percentage: legacyDecWire(5, 1),
      intent_sequence: String(SEED_COUNTS.intents + 1),
    },
    tokenParams: { ixo1155_contract_code: '25' },
    entities: entities.sort(byKey('id')),
    iidDocuments: iidDocuments.sort(byKey('id')),
    collections: collections.sort(byKey('id')),
    claims: claims.sort(byKey('claim_id')),
    disputes: disputes.sort(byKey('subject_id')),
    intents: intents.sort(byKey('id')),
    tokens: tokens.sort((a, b) => byKey('minter')(a, b) || byKey('name')(a, b)),
    tokenMetadata,
  };
}
