import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { Transform } from 'class-transformer';

// Environment values are strings; these decorators convert them before validation. An unparseable value is
// passed through unchanged so the validator reports it against the variable's name.

export function AsInteger(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value,
  );
}

export function AsNumber(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))
      ? Number(value)
      : value,
  );
}

/** Only `true`/`false` (any case), `1`/`0`: `Boolean("false")` must never enable a feature. */
export function AsBoolean(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    const normalized = value.trim().toLowerCase();
    if (normalized === 'true' || normalized === '1') return true;
    if (normalized === 'false' || normalized === '0') return false;
    return value;
  });
}

/** Comma-separated list; blanks removed. */
export function AsList(): PropertyDecorator {
  return Transform(({ value }: { value: unknown }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((item) => item.trim())
          .filter((item) => item.length > 0)
      : value,
  );
}

export interface IntegerRange {
  min?: number;
  max?: number;
}

/** An integer variable within a range: the conversion and every rule in one decorator. */
export function IntegerVariable(range: IntegerRange = {}): PropertyDecorator {
  return allOf(
    AsInteger(),
    IsInt(),
    ...(range.min === undefined ? [] : [Min(range.min)]),
    ...(range.max === undefined ? [] : [Max(range.max)]),
  );
}

/** A comma-separated list whose every entry matches `pattern`; `message` says what an entry must be. */
export function ListVariable(pattern: RegExp, message: string): PropertyDecorator {
  return allOf(AsList(), IsString({ each: true }), Matches(pattern, { each: true, message }));
}

/** A string variable that may be unset, and when set matches `pattern`; `message` says what it must be. */
export function OptionalMatching(pattern: RegExp, message: string): PropertyDecorator {
  return allOf(IsOptional(), IsString(), Matches(pattern, { message }));
}

function allOf(...rules: PropertyDecorator[]): PropertyDecorator {
  return (target, property) => {
    for (const rule of rules) rule(target, property);
  };
}
