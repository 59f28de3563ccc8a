import { AddressList } from './address-list';

describe('AddressList', () => {
  const list = new AddressList(['196.201.214.0/24', '10.1.2.3', '2001:db8::/32']);

  it('matches CIDRs, single addresses and IPv4-mapped IPv6', () => {
    expect(list.has('196.201.214.77')).toBe(true);
    expect(list.has('::ffff:196.201.214.1')).toBe(true);
    expect(list.has('10.1.2.3')).toBe(true);
    expect(list.has('2001:db8::1')).toBe(true);
    expect(list.has('10.1.2.4')).toBe(false);
    expect(list.has('196.201.215.1')).toBe(false);
    expect(list.has(undefined)).toBe(false);
    expect(new AddressList([]).has('127.0.0.1')).toBe(false);
  });

  it.each(['10.0.0.0/33', 'not-an-ip', '300.1.1.1'])('refuses %j at start-up', (entry) => {
    expect(() => new AddressList([entry])).toThrow('RATE_LIMIT_EXEMPT_CIDRS');
  });
});
