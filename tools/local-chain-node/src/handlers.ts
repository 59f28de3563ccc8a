import { status } from '@grpc/grpc-js';
import { ChainNodeError, paginate, PageRequestInput } from './paginate';
import { agentAddress, SEED_COUNTS, SeedData } from './seed';

type Plain = Record<string, unknown>;
export type QueryHandler = (request: Plain) => Plain;
/** Handlers by service name, then by method name. Methods without one answer UNIMPLEMENTED, as on an older node. */
export type QueryHandlers = Record<string, Record<string, QueryHandler>>;

function required(request: Plain, field: string): string {
  const value = request[field];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ChainNodeError(status.INVALID_ARGUMENT, `${field} cannot be empty`);
  }
  return value;
}

function page(request: Plain): PageRequestInput | undefined {
  return request.pagination as PageRequestInput | undefined;
}

function str(field: string): (item: Plain) => string {
  return (item) => String(item[field]);
}

// The entity and iid modules answer NOT_FOUND for a missing record; the claims and token modules wrap their
// registered errors in UNKNOWN ("... code 1100: claim not found"), as the public chain does. Both are kept so the
// gateway's handling of each can be exercised.
function notFound(message: string): ChainNodeError {
  return new ChainNodeError(status.NOT_FOUND, message);
}
function unknownNotFound(what: string, id: string, code: number): ChainNodeError {
  return new ChainNodeError(status.UNKNOWN, `${what} ${id}: code ${code}: ${what} not found`);
}

/** Each agent holds uixo and a carbon credit denomination, amounts from its index; other addresses hold nothing. */
function balancesOf(address: string): Plain[] {
  for (let i = 0; i < SEED_COUNTS.agents; i += 1) {
    if (agentAddress(i) === address) {
      return [
        { denom: 'ucarbon', amount: String(250 * (i + 1)) },
        { denom: 'uixo', amount: String(1_000_000 * (i + 1)) },
      ];
    }
  }
  return [];
}

export function buildHandlers(seed: SeedData): QueryHandlers {
  const entityById = new Map(seed.entities.map((entity) => [String(entity.id), entity]));
  const iidById = new Map(seed.iidDocuments.map((doc) => [String(doc.id), doc]));
  const collectionById = new Map(seed.collections.map((collection) => [String(collection.id), collection]));
  const claimById = new Map(seed.claims.map((claim) => [String(claim.claim_id), claim]));
  const disputeByProof = new Map(
    seed.disputes.map((dispute) => [String((dispute.data as Plain).proof), dispute]),
  );

  const entity = (request: Plain): Plain => {
    const id = required(request, 'id');
    const found = entityById.get(id);
    if (!found) throw notFound(`entity ${id} not found`);
    return found;
  };
  const iid = (id: string): Plain => {
    const found = iidById.get(id);
    if (!found) throw notFound(`did document ${id} not found`);
    return found;
  };

  return {
    'ixo.entity.v1beta1.Query': {
      Params: () => ({ params: seed.entityParams }),
      Entity: (request) => {
        const found = entity(request);
        return { entity: found, iidDocument: iid(String(found.id)) };
      },
      EntityMetaData: (request) => ({ entity: entity(request) }),
      EntityIidDocument: (request) => ({ iidDocument: iid(String(entity(request).id)) }),
      EntityVerified: (request) => ({ entity_verified: entity(request).entity_verified }),
      EntityList: (request) => {
        const { items, pagination } = paginate(seed.entities, str('id'), page(request));
        return { entities: items, pagination };
      },
    },
    'ixo.iid.v1beta1.Query': {
      IidDocuments: (request) => {
        const { items, pagination } = paginate(seed.iidDocuments, str('id'), page(request));
        return { iidDocuments: items, pagination };
      },
      IidDocument: (request) => ({ iidDocument: iid(required(request, 'id')) }),
    },
    'ixo.claims.v1beta1.Query': {
      Params: () => ({ params: seed.claimsParams }),
      Collection: (request) => {
        const id = required(request, 'id');
        const found = collectionById.get(id);
        if (!found) throw unknownNotFound('collection', id, 1101);
        return { collection: found };
      },
      CollectionList: (request) => {
        const { items, pagination } = paginate(seed.collections, str('id'), page(request));
        return { collections: items, pagination };
      },
      Claim: (request) => {
        const id = required(request, 'id');
        const found = claimById.get(id);
        if (!found) throw unknownNotFound('claim', id, 1100);
        return { claim: found };
      },
      ClaimList: (request) => {
        const { items, pagination } = paginate(seed.claims, str('claim_id'), page(request));
        return { claims: items, pagination };
      },
      Dispute: (request) => {
        const proof = required(request, 'proof');
        const found = disputeByProof.get(proof);
        if (!found) throw unknownNotFound('dispute', proof, 1102);
        return { dispute: found };
      },
      DisputeList: (request) => {
        const { items, pagination } = paginate(seed.disputes, str('subject_id'), page(request));
        return { disputes: items, pagination };
      },
      Intent: (request) => {
        const id = required(request, 'id');
        const agentAddress = required(request, 'agentAddress');
        const collectionId = required(request, 'collectionId');
        const found = seed.intents.find(
          (intent) =>
            intent.id === id &&
            intent.agent_address === agentAddress &&
            intent.collection_id === collectionId,
        );
        if (!found) throw unknownNotFound('intent', id, 1103);
        return { intent: found };
      },
      IntentList: (request) => {
        const { items, pagination } = paginate(seed.intents, str('id'), page(request));
        return { intents: items, pagination };
      },
    },
    'ixo.token.v1beta1.Query': {
      Params: () => ({ params: seed.tokenParams }),
      TokenMetadata: (request) => {
        const id = required(request, 'id');
        const found = seed.tokenMetadata.get(id);
        if (!found) throw unknownNotFound('token', id, 1200);
        return found;
      },
      TokenList: (request) => {
        const minter = required(request, 'minter');
        const key = (token: Plain): string => `${String(token.contract_address)}/${String(token.name)}`;
        const own = seed.tokens
          .filter((token) => token.minter === minter)
          .sort((a, b) => (key(a) < key(b) ? -1 : 1));
        const { items, pagination } = paginate(own, key, page(request));
        return { tokenDocs: items, pagination };
      },
      TokenDoc: (request) => {
        const minter = required(request, 'minter');
        const contract = required(request, 'contract_address');
        const found = seed.tokens.find(
          (token) => token.minter === minter && token.contract_address === contract,
        );
        if (!found) throw unknownNotFound('token', contract, 1200);
        return { tokenDoc: found };
      },
    },
    'cosmos.bank.v1beta1.Query': {
      Balance: (request) => {
        const address = required(request, 'address');
        const denom = required(request, 'denom');
        const held = balancesOf(address).find((coin) => coin.denom === denom);
        return { balance: held ?? { denom, amount: '0' } };
      },
      AllBalances: (request) => {
        const { items, pagination } = paginate(
          balancesOf(required(request, 'address')),
          str('denom'),
          page(request),
        );
        return { balances: items, pagination };
      },
    },
    'cosmos.mint.v1beta1.Query': {
      Params: () => ({
        params: {
          mint_denom: 'uixo',
          inflation_rate_change: '0.130000000000000000',
          inflation_max: '0.200000000000000000',
          inflation_min: '0.070000000000000000',
          goal_bonded: '0.670000000000000000',
          blocks_per_year: '6311520',
        },
      }),
    },
  };
}
