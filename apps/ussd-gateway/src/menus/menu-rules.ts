/** Input rules of the menus: pure, shared by the machine and its tests. */

const NAME_PATTERN = /^\p{L}[\p{L}\p{M}]*(?:[ '’-]+[\p{L}\p{M}]+)*$/u;
const EMAIL_PATTERN = /^[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$/;
const CUSTOMER_ID_INPUT = /^[cC]?([0-9a-fA-F]{8})$/;

export const NAME_MIN = 2;
export const NAME_MAX = 60;
export const EMAIL_MAX = 80;

/** Letters (any script, accents included), spaces, hyphens and apostrophes; returns the tidied name or null. */
export function normalizeFullName(input: string): string | null {
  const name = input.trim().replace(/\s+/g, ' ').normalize('NFC');
  if ([...name].length < NAME_MIN || [...name].length > NAME_MAX) return null;
  return NAME_PATTERN.test(name) ? name : null;
}

export function normalizeEmail(input: string): string | null {
  const email = input.trim();
  if (email.length > EMAIL_MAX) return null;
  return EMAIL_PATTERN.test(email) ? email.toLowerCase() : null;
}

export function isPinShaped(input: string): boolean {
  return /^\d{5}$/.test(input);
}

/** Same digit five times, or a run up or down (12345, 98765, 01234 …): the first guesses of anyone. */
export function isTrivialPin(pin: string): boolean {
  const digits = [...pin].map(Number);
  const steps = new Set(digits.slice(1).map((digit, index) => digit - digits[index]!));
  return steps.size === 1 && [0, 1, -1].includes([...steps][0]!);
}

/** Keypads make letters awkward, so the leading C is optional and case is ignored. */
export function normalizeCustomerId(input: string): string | null {
  const match = CUSTOMER_ID_INPUT.exec(input.trim());
  return match ? `C${match[1]!.toUpperCase()}` : null;
}
