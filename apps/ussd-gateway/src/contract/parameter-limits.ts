import { InvalidInputError } from '@dmrv/errors';

/**
 * The longest value each parameter of the operator endpoints takes, in characters (a surrogate pair counts once, as
 * the session request's own rule counts): the longest value its format allows (an E.164 number, a date-time with
 * milliseconds and an offset, a cursor this service writes, `F` and 15 digits), and a session request's `sessionId`.
 * A longer one is 400 `<name> must be at most <n> characters` before it is parsed, looked up or compared.
 */
export const OPERATOR_PARAMETER_MAX_LENGTH = {
  sessionId: 100,
  phone: 16,
  phoneNumber: 16,
  status: 32,
  from: 29,
  to: 29,
  cursor: 32,
  limit: 3,
  orderNumber: 16,
  ticketNumber: 16,
} as const;

export type BoundedParameter = keyof typeof OPERATOR_PARAMETER_MAX_LENGTH;

const characters = (value: string, max: number): number =>
  value.length <= max ? value.length : [...value].length;

/** The message for the first of `values` longer than its bound, or undefined; values that are not strings are the parser's. */
export function overlongParameter(values: Partial<Record<BoundedParameter, unknown>>): string | undefined {
  for (const [name, value] of Object.entries(values) as Array<[BoundedParameter, unknown]>) {
    const max = OPERATOR_PARAMETER_MAX_LENGTH[name];
    if (typeof value === 'string' && characters(value, max) > max)
      return `${name} must be at most ${max} characters`;
  }
  return undefined;
}

/** Throws the 400 of `overlongParameter`. */
export function refuseOverlong(values: Partial<Record<BoundedParameter, unknown>>): void {
  const message = overlongParameter(values);
  if (message !== undefined) throw new InvalidInputError(message);
}
