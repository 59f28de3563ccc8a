import { paginate } from './paginate';
import { page, Plain, required, str, notFound, unknownNotFound, QueryHandlers } from './handler-kit';
import { SeedData } from './seed';

// The chain's own modules, as the public chain answers them.

/** The entity and iid modules: an entity's answers carry its DID document. */
export function entityAndIidHandlers(seed: SeedData): QueryHandlers {
  const entityById = new Map(seed.entities.map((entity) => [String(entity.id), entity]));
  const iidById = new Map(seed.iidDocuments.map((doc) => [String(doc.id), doc]));
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
  };
}

function intentOf(seed: SeedData, request: Plain): Plain {
  const id = required(request, 'id');
  const agentAddress = required(request, 'agentAddress');
  const collectionId = required(request, 'collectionId');
  const found = seed.intents.find(
    (intent) =>
      intent.id === id && intent.agent_address === agentAddress && intent.collection_id === collectionId,
  );
  if (!found) throw unknownNotFound('intent', id, 1103);
  return found;
}

export function claimsHandlers(seed: SeedData): QueryHandlers {
  const collectionById = new Map(seed.collections.map((collection) => [String(collection.id), collection]));
  const claimById = new Map(seed.claims.map((claim) => [String(claim.claim_id), claim]));
  const disputeByProof = new Map(
    seed.disputes.map((dispute) => [String((dispute.data as Plain).proof), dispute]),
  );
  return {
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
      Intent: (request) => ({ intent: intentOf(seed, request) }),
      IntentList: (request) => {
        const { items, pagination } = paginate(seed.intents, str('id'), page(request));
        return { intents: items, pagination };
      },
    },
  };
}

export function tokenHandlers(seed: SeedData): QueryHandlers {
  return {
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
  };
}
