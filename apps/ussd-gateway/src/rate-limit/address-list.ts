import { BlockList, isIP } from 'node:net';

/** Client addresses as Fastify reports them may be IPv4-mapped IPv6 (`::ffff:10.0.0.1`); CIDRs are written in IPv4. */
function unmap(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

/** A set of IPs and CIDR ranges (the aggregator's addresses). Malformed entries throw at start-up. */
export class AddressList {
  private readonly list = new BlockList();
  readonly size: number;

  /** `variable` names the setting the entries come from, in the error a malformed entry throws. */
  constructor(entries: string[], variable = 'RATE_LIMIT_EXEMPT_CIDRS') {
    for (const entry of entries) {
      const [address = '', prefixText] = entry.split('/');
      const family = isIP(address);
      if (family === 0) throw new Error(`${variable}: "${entry}" is not an IP address or CIDR`);
      const type = family === 4 ? 'ipv4' : 'ipv6';
      const prefix = prefixText === undefined ? (family === 4 ? 32 : 128) : Number(prefixText);
      if (!Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
        throw new Error(`${variable}: "${entry}" has an invalid prefix length`);
      }
      this.list.addSubnet(address, prefix, type);
    }
    this.size = entries.length;
  }

  has(address: string | undefined): boolean {
    if (!address || this.size === 0) return false;
    const plain = unmap(address);
    const family = isIP(plain);
    if (family === 0) return false;
    return this.list.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }
}
