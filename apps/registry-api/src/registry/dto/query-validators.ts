import { Transform } from 'class-transformer';
import { registerDecorator, ValidationArguments, ValidationOptions } from 'class-validator';
import { parseCombination } from '../../domain/fuel-combination';
import { parsePeriod } from '../../domain/period';

function isCalendarDate(value: unknown): boolean {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}

function rule(name: string, test: (value: unknown) => boolean, message: (args: ValidationArguments) => string) {
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

export const IsCalendarDate = rule('isCalendarDate', isCalendarDate, (args) => `${args.property} must be a date YYYY-MM-DD`);

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
  (args) => `${args.property} must be fuels among LPG, Electricity, Ethanol, Biogas, Kerosene, Charcoal, Biomass joined by " + "`,
);

export const IsUtcDateTime = rule(
  'isUtcDateTime',
  (value) =>
    typeof value === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) &&
    !Number.isNaN(new Date(value).getTime()),
  (args) => `${args.property} must be an ISO 8601 date-time with a time zone (e.g. 2024-01-01T00:00:00Z)`,
);

/** Query values arrive as strings; a non-integer string is left as is so the validator names the parameter. */
export function ToInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => (typeof value === 'string' && /^-?\d{1,9}$/.test(value) ? Number(value) : value));
}
