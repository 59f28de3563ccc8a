import { Transform } from 'class-transformer';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { isCalendarDate, isPlainText, isTimestamp } from '../../domain/calendar';
import { parseCombination } from '../../domain/fuel-combination';
import { parsePeriod } from '../../domain/period';

function rule(
  name: string,
  test: (value: unknown) => boolean,
  message: (args: ValidationArguments) => string,
) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target: object, propertyName: string | symbol) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        options: { message, ...options },
        validator: { validate: test },
      });
}

/**
 * A string parameter at most `max` characters long (UTF-16 code units, as `String.length` counts them). Put it last
 * (decorators register bottom-up) so that it is checked first: a value past it is refused before any other rule reads
 * it. Other types pass, for IsString to name them.
 */
export function MaxChars(max: number): PropertyDecorator {
  return (target: object, propertyName: string | symbol) =>
    registerDecorator({
      name: 'maxChars',
      target: target.constructor,
      propertyName: propertyName as string,
      constraints: [max],
      options: {
        message: (args: ValidationArguments) => `${args.property} must be at most ${max} characters`,
      },
      validator: { validate: (value: unknown) => typeof value !== 'string' || value.length <= max },
    });
}

export const IsCalendarDate = rule(
  'isCalendarDate',
  (value) => typeof value === 'string' && isCalendarDate(value),
  (args) => `${args.property} must be a date YYYY-MM-DD`,
);

/** Free-text filters (region, transfer parties): PostgreSQL text cannot hold a NUL, and no name holds a control character. */
export const IsPlainText = rule(
  'isPlainText',
  (value) => typeof value === 'string' && isPlainText(value),
  (args) => `${args.property} must be text without control characters`,
);

export const IsPeriod = rule(
  'isPeriod',
  (value) => {
    if (typeof value !== 'string') return false;
    try {
      parsePeriod(value);
      return true;
    } catch {
      return false;
    }
  },
  (args) => `${args.property} must be a period YYYY-Q1…YYYY-Q4, YYYY or YYYY-MM`,
);

export const IsFuelCombination = rule(
  'isFuelCombination',
  (value) => {
    if (typeof value !== 'string') return false;
    try {
      parseCombination(value);
      return true;
    } catch {
      return false;
    }
  },
  (args) =>
    `${args.property} must be fuels among LPG, Electricity, Ethanol, Biogas, Kerosene, Charcoal, Biomass joined by " + "`,
);

export const IsUtcDateTime = rule(
  'isUtcDateTime',
  (value) => typeof value === 'string' && isTimestamp(value),
  (args) => `${args.property} must be an ISO 8601 date-time with a time zone (e.g. 2024-01-01T00:00:00Z)`,
);

/** Query values arrive as strings; a non-integer string is left as is so the validator names the parameter. */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value,
  );
}
