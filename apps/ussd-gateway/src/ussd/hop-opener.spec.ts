import { MemoryRateLimitStorage } from '@dmrv/rate-limit';
import { describeHopOpenerContract, unlimitedHit } from './hop-opener.contract';
import { memorySessionRooms } from './session-rooms';

const memoryRooms = (counter = new MemoryRateLimitStorage()) => memorySessionRooms(counter);

describeHopOpenerContract('SequentialHopOpener on process memory', () => {
  const shared = memoryRooms();
  return { create: () => shared, isolated: () => memoryRooms() };
});

describe('SequentialHopOpener', () => {
  it('counts hops in the counter it is given (the one the other endpoints count in)', async () => {
    const counter = new MemoryRateLimitStorage();
    const { opener } = memoryRooms(counter);
    const hit = unlimitedHit('10.0.0.1');
    const { lease } = await opener.open('r', { waitMs: 100, hit });
    await lease!.release();
    await expect(counter.increment(hit.key, hit.ttlMs, hit.limit, hit.blockMs)).resolves.toMatchObject({
      totalHits: 2,
    });
  });
});
