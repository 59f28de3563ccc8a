import { address, cid, entityDid, hex, Plain } from './seed-values';

const MINTERS = 3;
const TOKENS_PER_MINTER = 4;

function tokenDoc(m: number, t: number, minter: string, contract: string, name: string): Plain {
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
  return {
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
  };
}

function tokenMetadataOf(m: number, t: number, name: string, index: string): Plain {
  return {
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
  };
}

/** Three minters with four tokens each, and each token's metadata by its index. */
export function seedTokens(): { tokens: Plain[]; tokenMetadata: Map<string, Plain> } {
  const tokens: Plain[] = [];
  const tokenMetadata = new Map<string, Plain>();
  for (let m = 0; m < MINTERS; m += 1) {
    const minter = address(`minter:${m}`);
    for (let t = 0; t < TOKENS_PER_MINTER; t += 1) {
      const contract = address(`contract:${m}:${t}`);
      const name = `CARBON${m}${t}`;
      tokens.push(tokenDoc(m, t, minter, contract, name));
      const index = hex(`token:${m}:${t}`, 32);
      tokenMetadata.set(index, tokenMetadataOf(m, t, name, index));
    }
  }
  return { tokens, tokenMetadata };
}
