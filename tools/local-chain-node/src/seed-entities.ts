import { address, agentDid, at, cid, DAY, entityDid, hex, Plain, SEED_COUNTS } from './seed-values';

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

/** The entities with their DID documents, and the agents' DID documents. */
export function seedEntities(): { entities: Plain[]; iidDocuments: Plain[] } {
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
  return { entities, iidDocuments };
}
