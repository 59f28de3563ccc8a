import { createHash } from 'node:crypto';

// The seed's identifiers, dates and amounts: derived from labels, the same on every start.

export interface Timestamp {
  seconds: number;
  nanos: number;
}
export type Plain = Record<string, unknown>;

export const SEED_COUNTS = {
  entities: 120,
  agents: 20,
  collections: 12,
  claims: 260,
  disputes: 15,
  intents: 30,
};

export function hex(label: string, length = 32): string {
  return createHash('sha256').update(label).digest('hex').slice(0, length);
}

/** A bech32-looking ixo address; not checksummed, which no query validates. */
export function address(label: string): string {
  return `ixo1${hex(`addr:${label}`, 38).replace(/[^a-z0-9]/g, 'q')}`;
}

/** CIDv1-looking claim ids (base32 alphabet). */
export function cid(label: string): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const bytes = createHash('sha256').update(`cid:${label}`).digest();
  let out = 'bafkrei';
  for (let i = 0; i < 52; i += 1) out += alphabet[bytes[i % bytes.length]! % 32];
  return out;
}

const BASE = Date.UTC(2024, 0, 1) / 1000;
export const DAY = 86_400;

export function at(offsetSeconds: number, nanos = 0): Timestamp {
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
