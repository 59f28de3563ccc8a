import { IsString, MaxLength } from 'class-validator';

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

/**
 * The first checks of an operator parameter: a string given once (`<name> must be given once`), then no longer than
 * its bound, before any other rule reads it. class-validator runs a property's rules in the order they are applied,
 * which is bottom to top: this decorator goes lowest, right above the property.
 */
export function BoundedString(name: BoundedParameter): PropertyDecorator {
  const max = OPERATOR_PARAMETER_MAX_LENGTH[name];
  return (target, property) => {
    IsString({ message: '$property must be given once' })(target, property);
    MaxLength(max, { message: `$property must be at most ${max} characters` })(target, property);
  };
}
