import { randomBytes, scryptSync } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { NicedScryptThreads } from './pin-hash-threads';
import { PinVault } from './pin-vault';

const CHEAP = { N: 2 ** 10, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };

/** The nice value of every thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('NicedScryptThreads', () => {
  let threads: NicedScryptThreads;

  beforeAll(() => {
    threads = new NicedScryptThreads(2, 7);
  });

  afterAll(async () => {
    await threads.close();
  });

  it('hashes exactly as scrypt does, several at once, on threads below the event loop’s priority', async () => {
    await expect(threads.niced).resolves.toBe(true);
    const salts = [randomBytes(16), randomBytes(16), randomBytes(16)];
    const hashes = await Promise.all(salts.map((salt, index) => threads.scrypt(Buffer.from(`2468${index}`), salt, 32, CHEAP)));
    expect(hashes).toEqual(salts.map((salt, index) => scryptSync(`2468${index}`, salt, 32, CHEAP)));
    // This thread (the event loop) keeps the process's priority; exactly the two hash threads run 7 below it.
    const loop = getPriority();
    const nice = threadNiceValues();
    expect(nice.filter((value) => value === Math.min(19, loop + 7))).toHaveLength(2);
    expect(nice.filter((value) => value === loop).length).toBeGreaterThanOrEqual(1);
  });

  it('fails a hash scrypt refuses, and goes on hashing', async () => {
    await expect(threads.scrypt('24680', randomBytes(16), 32, { ...CHEAP, N: 3 })).rejects.toThrow(/Invalid scrypt params/);
    await expect(threads.scrypt('24680', Buffer.alloc(16), 32, CHEAP)).resolves.toEqual(scryptSync('24680', Buffer.alloc(16), 32, CHEAP));
  });

  it('serves a PinVault: sealed on the threads, verified on libuv’s pool and the other way round', async () => {
    const key = { id: 'k1', key: randomBytes(32) };
    const onThreads = new PinVault(key, [], 10, threads.scrypt);
    const onPool = new PinVault(key, [], 10);
    await expect(onPool.verify('24680', await onThreads.seal('24680'))).resolves.toBe(true);
    await expect(onThreads.verify('24680', await onPool.seal('24680'))).resolves.toBe(true);
    await expect(onThreads.verify('24681', await onPool.seal('24680'))).resolves.toBe(false);
  });

  it('refuses work once closed', async () => {
    const closing = new NicedScryptThreads(1, 7);
    await closing.close();
    await expect(closing.scrypt('24680', randomBytes(16), 32, CHEAP)).rejects.toThrow(/closed/);
  });
});
