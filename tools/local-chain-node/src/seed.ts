import { createHash } from 'node:crypto';

// A deterministic data set: the same ids, dates and amounts on every start, so tests, the README and the
// benchmarks can name records. Shapes are plain objects with the proto field names (protobufjs fromObject input).

export interface Timestamp {
  seconds: number;
  nanos: number;
}
type Plain = Record<string, unknown>;

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

export const SEED_COUNTS = {
  entities: 120,
  agents: 20,
  collections: 12,
  claims: 260,
  disputes: 15,
  intents: 30,
};

function hex(label: string, length = 32): string {
  return createHash('sha256').update(label).digest('hex').slice(0, length);
}

/** A bech32-looking ixo address; not checksummed, which no query validates. */
function address(label: string): string {
  return `ixo1${hex(`addr:${label}`, 38).replace(/[^a-z0-9]/g, 'q')}`;
}

/** CIDv1-looking claim ids (base32 alphabet). */
function cid(label: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = createHash('sha256').update(`cid:${label}`).digest();
  let out = 'bafkrei';
  for (let i = 0; i < 52; i += 1) out += alphabet[bytes[i % bytes.length]! % 32];
  return out;
}

const BASE = Date.UTC(2024, 0, 1) / 1000;
const DAY = 86_400;

function at(offsetSeconds: number, nanos = 0): Timestamp {
  return { seconds: BASE + offsetSeconds, nanos };
}

export function entityDid(index: number): string {
  return `did:ixo:entity:${hex(`entity:${index}`)}`;
}

/**
 * A cosmossdk.io/math.LegacyDec as the chain puts it on the wire: `units / 10^decimals` scaled by 10^18, as a string
 * of digits (legacyDecWire(15, 1) is 1.5: "1500000000000000000").
 */
export function legacyDecWire(units: number, decimals: number): string {
  return (BigInt(units) * 10n ** BigInt(18 - decimals)).toString();
}

/** The account address of agent `index` (what its DID carries, and what holds its balances). */
export function agentAddress(index: number): string {
  return address(`agent:${index}`);
}

export function agentDid(index: number): string {
  return `did:ixo:${address(`agent:${index}`)}`;
}

function iidDocument(id: string, index: number, controller: string): Plain {
  return {
    context: [{ key: 'class', val: 'did:ixo:entity:protocol' }],
    id,
    controller: [controller],
    verificationMethod: [
      {
        id: `${id}#key-1`,
        type: 'EcdsaSecp256k1VerificationKey2019',
        controller: id,
        publicKeyMultibase: `z${hex(`key:${id}`, 44)}`,
      },
      index % 3 === 0
        ? {
            id: `${id}#account`,
            type: 'CosmosAccountAddress',
            controller: id,
            blockchainAccountID: address(id),
          }
        : {
            id: `${id}#key-2`,
            type: 'Ed25519VerificationKey2018',
            controller: id,
            publicKeyBase58: hex(`b58:${id}`, 44),
          },
    ],
    service: [{ id: `${id}#ipfs`, type: 'ipfs', serviceEndpoint: 'https://ipfs.io/ipfs/' }],
    authentication: [`${id}#key-1`],
    assertionMethod: [],
    keyAgreement: [],
    capabilityInvocation: [],
    capabilityDelegation: [],
    linkedResource: [
      {
        type: 'Settings',
        id: `${id}#profile`,
        description: 'Profile',
        mediaType: 'application/ld+json',
        serviceEndpoint: `ipfs:${cid(`profile:${id}`)}`,
        proof: cid(`profile:${id}`),
        encrypted: 'false',
        right: '',
      },
    ],
    linkedClaim: [],
    accordedRight: [],
    linkedEntity:
      index > 0 ? [{ type: 'protocol', id: entityDid(0), relationship: 'subsidiary', service: '' }] : [],
    alsoKnownAs: index % 2 === 0 ? `household-stove-${index}` : '',
    metadata: {
      versionId: `${id}#1`,
      created: at(index * DAY),
      updated: at(index * DAY + 3600),
      deactivated: false,
    },
  };
}

function byKey(key: string): (a: Plain, b: Plain) => number {
  return (a, b) => (String(a[key]) < String(b[key]) ? -1 : String(a[key]) > String(b[key]) ? 1 : 0);
}

export function buildSeed(): SeedData {
  const relayer = address('relayer');
  const entityTypes = ['protocol', 'asset', 'dao', 'oracle', 'project'];
  const entities: Plain[] = [];
  const iidDocuments: Plain[] = [];
  for (let i = 0; i < SEED_COUNTS.entities; i += 1) {
    const id = entityDid(i);
    entities.push({
      id,
      type: entityTypes[i % entityTypes.length],
      start_date: at(i * DAY),
      end_date: i % 4 === 0 ? null : at((i + 365) * DAY),
      status: i % 7 === 0 ? 1 : 0,
      relayer_node: relayer,
      credentials: i % 5 === 0 ? [`${id}#credential-1`] : [],
      entity_verified: i % 2 === 0,
      metadata: { version_id: `${id}#1`, created: at(i * DAY, 123_000_000), updated: at(i * DAY + 7200) },
      accounts: [{ name: 'admin', address: address(`admin:${i}`) }],
    });
    iidDocuments.push(iidDocument(id, i, address(`admin:${i}`)));
  }
  for (let i = 0; i < SEED_COUNTS.agents; i += 1) {
    iidDocuments.push(iidDocument(agentDid(i), i, address(`agent:${i}`)));
  }

  const collections: Plain[] = [];
  for (let i = 1; i <= SEED_COUNTS.collections; i += 1) {
    const coin = [{ denom: 'uixo', amount: String(1_000_000 * i) }];
    const payment = (kind: string, seconds: number): Plain => ({
      account: address(`payments:${i}:${kind}`),
      amount: coin,
      timeout_ns: { seconds, nanos: 0 },
      cw20_payment: kind === 'approval' ? [{ address: address(`cw20:${i}`), amount: String(500 * i) }] : [],
      is_oracle_payment: kind === 'approval',
    });
    collections.push({
      id: String(i),
      entity: entityDid(i),
      admin: address(`admin:${i}`),
      protocol: entityDid(0),
      start_date: at(i * DAY),
      end_date: i % 3 === 0 ? at((i + 730) * DAY) : null,
      quota: String(i % 2 === 0 ? 0 : 10_000),
      count: '0',
      evaluated: '0',
      approved: '0',
      rejected: '0',
      disputed: '0',
      state: i % 5 === 0 ? 1 : 0,
      payments: {
        submission: payment('submission', 0),
        evaluation: payment('evaluation', 3600),
        approval: payment('approval', 86_400),
        rejection: payment('rejection', 0),
      },
      signer: address(`admin:${i}`),
      invalidated: '0',
      escrow_account: address(`escrow:${i}`),
      intents: i % 4,
      dispute_deposit_amount: i % 2 === 0 ? [{ denom: 'uixo', amount: '5000000' }] : [],
      min_deposit_period: { seconds: i % 2 === 0 ? 604_800 : 0, nanos: 0 },
      // LegacyDec on the wire, as the chain sends it: the value scaled by 10^18 (collection 2: 0, then 0.05, 0.1 …).
      adjudicators:
        i % 2 === 0 ? [{ did: entityDid(4), reward_percentage: legacyDecWire((i - 2) * 25, 3) }] : [],
    });
  }

  const claims: Plain[] = [];
  for (let i = 0; i < SEED_COUNTS.claims; i += 1) {
    const collection = collections[i % collections.length]!;
    const claimId = cid(`claim:${i}`);
    const evaluated = i % 3 !== 0;
    const status = i % 10 === 0 ? 2 : 1;
    collection.count = String(Number(collection.count) + 1);
    if (evaluated) {
      collection.evaluated = String(Number(collection.evaluated) + 1);
      if (status === 1) collection.approved = String(Number(collection.approved) + 1);
      else collection.rejected = String(Number(collection.rejected) + 1);
    }
    claims.push({
      collection_id: collection.id,
      agent_did: agentDid(i % SEED_COUNTS.agents),
      agent_address: address(`agent:${i % SEED_COUNTS.agents}`),
      submission_date: at(30 * DAY + i * 3600, (i % 1000) * 1_000_000),
      claim_id: claimId,
      evaluation: evaluated
        ? {
            claim_id: claimId,
            collection_id: collection.id,
            oracle: entityDid(3),
            agent_did: agentDid(19),
            agent_address: address('agent:19'),
            status,
            reason: status === 1 ? 0 : 7,
            verification_proof: cid(`evaluation:${i}`),
            evaluation_date: at(31 * DAY + i * 3600),
            amount: [],
            cw20_payment: [],
          }
        : null,
      payments_status: {
        submission: 4,
        evaluation: evaluated ? 4 : 0,
        approval: evaluated && status === 1 ? 1 : 0,
        rejection: 0,
      },
      use_intent: i % 13 === 0,
      amount: i % 4 === 0 ? [{ denom: 'uixo', amount: String(250_000 + i) }] : [],
      cw20_payment: [],
      member_address: i % 6 === 0 ? address(`member:${i % SEED_COUNTS.agents}`) : '',
    });
  }

  const disputes: Plain[] = [];
  for (let i = 0; i < SEED_COUNTS.disputes; i += 1) {
    const claim = claims[i * 7]!;
    const proof = cid(`dispute:${i}`);
    disputes.push({
      subject_id: claim.claim_id,
      type: 1 + (i % 3),
      data: { uri: `ipfs://${proof}`, type: 'application/ld+json', proof, encrypted: i % 2 === 1 },
      target_role: 1 + (i % 2),
      disputer_address: address(`agent:${(i + 1) % SEED_COUNTS.agents}`),
      disputer_did: agentDid((i + 1) % SEED_COUNTS.agents),
      dispute_deposit: [{ denom: 'uixo', amount: '5000000' }],
      submitted_at: at(35 * DAY + i * 3600),
      status: i % 5 === 0 ? 1 : 0,
      resolution:
        i % 5 === 0
          ? {
              adjudicator_did: entityDid(4),
              adjudicator_address: address('adjudicator'),
              adjudicator_payout_address: address('adjudicator'),
              resolved_at: at(36 * DAY + i * 3600),
              data: {
                uri: `ipfs://${cid(`resolution:${i}`)}`,
                type: 'application/ld+json',
                proof: '',
                encrypted: false,
              },
              intended_penalty: [{ denom: 'uixo', amount: '1000000' }],
              actual_penalty_paid: [{ denom: 'uixo', amount: '1000000' }],
              winner_amount: [{ denom: 'uixo', amount: '900000' }],
              adjudicator_amount: [{ denom: 'uixo', amount: '100000' }],
              winner_address: address(`agent:${(i + 1) % SEED_COUNTS.agents}`),
              loser_address: claim.agent_address,
            }
          : null,
    });
  }

  const intents: Plain[] = [];
  for (let i = 1; i <= SEED_COUNTS.intents; i += 1) {
    const collection = collections[i % collections.length]!;
    intents.push({
      id: String(i),
      agent_did: agentDid(i % SEED_COUNTS.agents),
      agent_address: address(`agent:${i % SEED_COUNTS.agents}`),
      collection_id: collection.id,
      claim_id: i % 3 === 0 ? cid(`claim:${i}`) : '',
      created_at: at(40 * DAY + i * 600),
      expire_at: at(47 * DAY + i * 600),
      status: i % 3 === 0 ? 1 : i % 5 === 0 ? 2 : 0,
      amount: [{ denom: 'uixo', amount: String(100_000 * i) }],
      cw20_payment: [],
      from_address: address(`payments:${collection.id}:approval`),
      escrow_address: address(`escrow:${collection.id}`),
    });
  }

  const tokens: Plain[] = [];
  const tokenMetadata = new Map<string, Plain>();
  for (let m = 0; m < 3; m += 1) {
    const minter = address(`minter:${m}`);
    for (let t = 0; t < 4; t += 1) {
      const contract = address(`contract:${m}:${t}`);
      const name = `CARBON${m}${t}`;
      const retired =
        t % 2 === 0
          ? [
              {
                id: hex(`retired:${m}:${t}`, 16),
                reason: 'offset',
                jurisdiction: 'ZM',
                amount: '25',
                owner: address(`owner:${t}`),
              },
            ]
          : [];
      tokens.push({
        minter,
        contract_address: contract,
        class: entityDid(10 + m),
        name,
        description: `Verified clean-cooking emission reductions, batch ${m}.${t}`,
        image: `https://example.org/tokens/${name.toLowerCase()}.png`,
        type: 'ixo1155',
        cap: t === 0 ? '0' : String(1_000_000 * t),
        supply: String(12_345 * (t + 1)),
        paused: t === 3,
        stopped: false,
        retired,
        cancelled: [],
        transferred:
          t === 1
            ? [
                {
                  id: hex(`transferred:${m}:${t}`, 16),
                  reason: 'sold',
                  jurisdiction: 'ZM',
                  amount: '10',
                  owner: address(`owner:${t}`),
                  authorization_id: hex(`authorization:${m}:${t}`, 16),
                },
              ]
            : [],
      });
      const index = hex(`token:${m}:${t}`, 32);
      tokenMetadata.set(index, {
        name,
        description: `Verified clean-cooking emission reductions, batch ${m}.${t}`,
        decimals: '0',
        image: `https://example.org/tokens/${name.toLowerCase()}.png`,
        index,
        properties: {
          class: entityDid(10 + m),
          collection: entityDid(20 + m),
          cap: t === 0 ? '0' : String(1_000_000 * t),
          linkedResources: [
            {
              uri: `ipfs://${cid(`token:${index}`)}`,
              encrypted: false,
              proof: cid(`token:${index}`),
              type: 'application/json',
              id: entityDid(20 + m),
            },
          ],
        },
      });
    }
  }

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
