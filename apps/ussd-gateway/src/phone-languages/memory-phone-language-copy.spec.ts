import { MemoryPhoneLanguageCopyStore } from './memory-phone-language-copy';
import { describePhoneLanguageCopyContract } from './phone-language-copy.contract';

describePhoneLanguageCopyContract('MemoryPhoneLanguageCopyStore', () => ({
  isolated: (now) => new MemoryPhoneLanguageCopyStore(now),
}));

describe('MemoryPhoneLanguageCopyStore', () => {
  it('loses the whole copy, marks included, when it expires', async () => {
    let now = Date.now();
    const copy = new MemoryPhoneLanguageCopyStore(() => now);
    const token = await copy.beginPhoneLanguageFill(60_000, 100);
    // Nobody chose yet: the complete copy holds no phone when the first change arrives.
    await copy.fillPhoneLanguages(token!, []);
    await copy.completePhoneLanguageFill(token!, 100);
    now += 50_000;
    // A change keeps the copy's expiry (as on Redis, where only a key without a TTL gets one).
    await copy.rememberPhoneLanguage('+254700000002', 'sw', 100);
    now += 49_000;
    expect(await copy.readPhoneLanguage('+254700000003')).toEqual({ kind: 'none' });
    now += 1_000;
    for (const phone of ['+254700000002', '+254700000003'])
      expect(await copy.readPhoneLanguage(phone)).toEqual({ kind: 'unknown' });
    expect(await copy.beginPhoneLanguageFill(60_000, 100)).not.toBeNull();
  });
});
