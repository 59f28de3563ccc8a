import { clusterLayout, SESSION_BUCKETS, singleNodeLayout } from './key-layout';

/** The hash slot Redis Cluster computes: CRC16 (XMODEM) of the hash tag (or the whole key), mod 16384. */
function slotOf(key: string): number {
  const open = key.indexOf('{');
  const close = open >= 0 ? key.indexOf('}', open + 1) : -1;
  const hashed = close > open + 1 ? key.slice(open + 1, close) : key;
  let crc = 0;
  for (const byte of Buffer.from(hashed)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc % 16384;
}

describe('Redis key layout', () => {
  it('keeps the names of one node, so an upgrade keeps the sessions in flight', () => {
    const layout = singleNodeLayout('ussd:');
    expect([
      layout.session('s1'),
      layout.lock('s1'),
      layout.index('s1'),
      layout.rateLimit('phone:+254700000001'),
      layout.phoneLanguages(),
    ]).toEqual([
      'ussd:session:s1',
      'ussd:lock:s1',
      'ussd:sessions:active',
      ['ussd:rl:phone:+254700000001', 'ussd:rl:phone:+254700000001:block'],
      'ussd:phone-languages',
    ]);
    expect(layout.indexes()).toEqual(['ussd:sessions:active']);
  });

  it('puts a session record, its lock and its index in one slot on a cluster, and spreads sessions over the slots', () => {
    const layout = clusterLayout('ussd:');
    const slots = new Set<number>();
    for (let n = 0; n < 2000; n += 1) {
      const id = `ATUid_${n}`;
      const slot = slotOf(layout.session(id));
      expect([slotOf(layout.lock(id)), slotOf(layout.index(id))]).toEqual([slot, slot]);
      expect(layout.indexes()).toContain(layout.index(id));
      slots.add(slot);
    }
    // 2000 sessions land in (nearly) every bucket, and the buckets in as many slots.
    expect(slots.size).toBeGreaterThan(SESSION_BUCKETS * 0.95);
    expect(new Set(layout.indexes().map(slotOf)).size).toBeGreaterThan(SESSION_BUCKETS * 0.95);
  });

  it('puts a counter and its block in one slot, whatever the key holds', () => {
    const layout = clusterLayout('ussd:');
    for (const key of ['default:10.0.0.1', 'phone:+254700000001', 'phone:{x}y}', 'phone:}{', 'default:::1']) {
      const [counter, block] = layout.rateLimit(key);
      expect(slotOf(block)).toBe(slotOf(counter));
    }
  });
});
