/**
 * A phone number as shown to whoever is signed in to the account: `+` and the first three digits (mostly the
 * country code) and the last two, the rest as `*`. A household may share a handset, so the person signed in is not
 * necessarily the account's owner; enough to recognise one's own number, not enough to learn someone else's.
 */
export function maskPhoneNumber(phoneNumber: string): string {
  const digits = phoneNumber.replace(/^\+/, '');
  if (digits.length <= 5) return `+${'*'.repeat(digits.length)}`;
  return `+${digits.slice(0, 3)}${'*'.repeat(digits.length - 5)}${digits.slice(-2)}`;
}
