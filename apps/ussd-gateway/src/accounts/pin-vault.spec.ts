import crypto, { randomBytes } from 'node:crypto';
import { parseKey, PinVault } from './pin-vault';

const key = (id: string) => ({ id, key: randomBytes(32) });

describe('PinVault', () => {
  const current = key('k2');
  const retired = key('k1');
  const vault = new PinVault(current, [retired]);

  it('seals with a random salt and IV, and never contains the PIN', async () => {
    const [a, b] = await Promise.all([vault.seal('24680'), vault.seal('24680')]);
    expect(a).not.toBe(b);
    expect(a).not.toContain('24680');
    expect(a.startsWith('v1.k2.')).toBe(true);
    await expect(vault.verify('24680', a)).resolves.toBe(true);
    await expect(vault.verify('24681', a)).resolves.toBe(false);
  });

  it('seals at the configured cost, and every stored hash keeps verifying at the cost it records', async () => {
    const cheap = new PinVault(current, [retired], 12);
    const scrypt = jest.spyOn(crypto, 'scrypt');
    try {
      const sealedCheap = await cheap.seal('24680');
      const sealedDefault = await vault.seal('24680');
      const costs = scrypt.mock.calls.map((call) => (call[3] as { N: number }).N);
      expect(costs).toEqual([2 ** 12, 2 ** 14]);
      await expect(vault.verify('24680', sealedCheap)).resolves.toBe(true);
      await expect(cheap.verify('24680', sealedDefault)).resolves.toBe(true);
      await expect(cheap.verify('24681', sealedDefault)).resolves.toBe(false);
      expect((scrypt.mock.calls.slice(2) as unknown[][]).map((call) => (call[3] as { N: number }).N)).toEqual(
        [2 ** 12, 2 ** 14, 2 ** 14],
      );
    } finally {
      scrypt.mockRestore();
    }
  });

  it('opens values sealed under a retired key and rewraps them under the current one', async () => {
    const old = await new PinVault(retired).seal('13579');
    expect(vault.keyIdOf(old)).toBe('k1');
    const rewrapped = vault.rewrap(old);
    expect(vault.keyIdOf(rewrapped)).toBe('k2');
    await expect(vault.verify('13579', rewrapped)).resolves.toBe(true);
  });

  it('refuses tampered values, unknown keys and a value moved under another key id', async () => {
    const sealed = await vault.seal('24680');
    const parts = sealed.split('.');
    const flipped = [...parts.slice(0, 4), Buffer.from('tampered').toString('base64url')].join('.');
    await expect(vault.verify('24680', flipped)).rejects.toThrow();
    await expect(new PinVault(key('k3')).verify('24680', sealed)).rejects.toThrow('not configured');
    await expect(vault.verify('24680', ['v1', 'k1', ...parts.slice(2)].join('.'))).rejects.toThrow();
  });

  it('says, without hashing, whether the configured keys open a stored PIN, and why not', async () => {
    const sealed = await vault.seal('24680');
    expect(vault.unopenable(sealed)).toBeUndefined();
    expect(vault.unopenable(await new PinVault(retired).seal('13579'))).toBeUndefined();
    // Restored with another installation's key under the same id, or with a key id nobody configured.
    expect(new PinVault(key(current.id)).unopenable(sealed)).toEqual({
      keyId: current.id,
      reason: 'wrong key',
    });
    expect(new PinVault(key('k9')).unopenable(sealed)).toEqual({ keyId: current.id, reason: 'unknown key' });
  });

  it('parses 32-byte keys as hex or base64 only', () => {
    expect(parseKey('00'.repeat(32))).toHaveLength(32);
    expect(parseKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseKey(randomBytes(16).toString('base64'))).toThrow('32 bytes');
  });

  describe('a new PIN held until its confirmation', () => {
    afterEach(() => jest.restoreAllMocks());

    it('is encrypted, never contains the PIN, and is compared without scrypt', async () => {
      const scrypt = jest.spyOn(crypto, 'scrypt');
      const [a, b] = [vault.hold('24680'), vault.hold('24680')];
      expect(a).not.toBe(b);
      expect(a.startsWith('h1.k2.')).toBe(true);
      expect(a).not.toContain('24680');
      expect(Buffer.from(a.split('.')[4]!, 'base64url').toString('latin1')).not.toContain('24680');
      expect(vault.matchesHeld('24680', a)).toBe(true);
      expect(vault.matchesHeld('24681', a)).toBe(false);
      expect(vault.matchesHeld('2468', a)).toBe(false);
      expect(scrypt).not.toHaveBeenCalled();
    });

    it('is hashed once, when it is sealed for storage', async () => {
      const scrypt = jest.spyOn(crypto, 'scrypt');
      const sealed = await vault.sealHeld(vault.hold('24680'));
      expect(scrypt).toHaveBeenCalledTimes(1);
      expect(sealed.startsWith('v1.k2.')).toBe(true);
      await expect(vault.verify('24680', sealed)).resolves.toBe(true);
    });

    it('and a sealed value never pass for each other, and tampering is refused', async () => {
      const held = vault.hold('24680');
      const sealed = await vault.seal('24680');
      await expect(vault.verify('24680', held)).rejects.toThrow('unknown sealed PIN format');
      await expect(vault.verify('24680', held.replace(/^h1\./, 'v1.'))).rejects.toThrow();
      expect(() => vault.matchesHeld('24680', sealed.replace(/^v1\./, 'h1.'))).toThrow();
      await expect(vault.sealHeld(sealed.replace(/^v1\./, 'h1.'))).rejects.toThrow();
      const parts = held.split('.');
      const flipped = [...parts.slice(0, 4), Buffer.from('13579').toString('base64url')].join('.');
      expect(() => vault.matchesHeld('13579', flipped)).toThrow();
    });

    it('opens under a retired key (a rotation during the session)', async () => {
      const held = new PinVault(retired).hold('24680');
      expect(vault.matchesHeld('24680', held)).toBe(true);
      const sealed = await vault.sealHeld(held);
      expect(vault.keyIdOf(sealed)).toBe('k2');
    });
  });
});
