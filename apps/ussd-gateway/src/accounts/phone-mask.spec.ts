import { maskPhoneNumber } from './phone-mask';

describe('maskPhoneNumber', () => {
  it.each([
    ['+254712345678', '+254*******78'],
    ['+12025550123', '+120******23'],
    ['+2547123', '+254**23'],
    ['+123456789012345', '+123**********45'],
  ])('%s → %s', (phone, masked) => {
    expect(maskPhoneNumber(phone)).toBe(masked);
    expect(masked).toHaveLength(phone.length);
  });
});
