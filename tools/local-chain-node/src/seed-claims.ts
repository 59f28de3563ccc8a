import { address, agentDid, at, cid, DAY, entityDid, legacyDecWire, Plain, SEED_COUNTS } from './seed-values';

// The claims module's records. Collections count the claims made in them, so claims are seeded after them.

export function seedCollections(): Plain[] {
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
  return collections;
}

function claimOf(i: number, collection: Plain, claimId: string, evaluated: boolean, status: number): Plain {
  return {
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
  };
}

/** Claims spread over `collections`, whose counts they update. */
export function seedClaims(collections: Plain[]): Plain[] {
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
    claims.push(claimOf(i, collection, claimId, evaluated, status));
  }
  return claims;
}

function resolutionOf(i: number, claim: Plain): Plain {
  return {
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
  };
}

export function seedDisputes(claims: readonly Plain[]): Plain[] {
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
      resolution: i % 5 === 0 ? resolutionOf(i, claim) : null,
    });
  }
  return disputes;
}

export function seedIntents(collections: readonly Plain[]): Plain[] {
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
  return intents;
}
