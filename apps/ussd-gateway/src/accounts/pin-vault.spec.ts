import { randomBytes } from 'node:crypto';
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

  it('parses 32-byte keys as hex or base64 only', () => {
    expect(parseKey('00'.repeat(32))).toHaveLength(32);
    expect(parseKey(randomBytes(32).toString('base64'))).toHaveLength(32);
    expect(() => parseKey(randomBytes(16).toString('base64'))).toThrow('32 bytes');
  });
});
