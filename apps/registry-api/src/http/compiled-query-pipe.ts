import { ArgumentMetadata, PipeTransform, Type } from '@nestjs/common';
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { TransformationType } from 'class-transformer';
import { getMetadataStorage, ValidationArguments, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

/** A query object as the query DTO, or `undefined` when the compiled checks cannot vouch for it. */
export type CompiledQuery = (query: Record<string, unknown>) => object | undefined;

type Validate = (value: unknown, args: ValidationArguments) => unknown;

interface CompiledProperty {
  name: string;
  /** `@IsOptional()` and `@ValidateIf()`: all true, or the property is not checked. */
  conditions: Array<(object: object, value: unknown) => boolean>;
  checks: Array<{ validate: Validate; constraints: unknown[] }>;
  /** `@Transform()` functions for plain → class, in the order class-transformer applies them. */
  transforms: Array<(params: { value: unknown; key: string; obj: unknown; type: TransformationType; options: object }) => unknown>;
}

const NO_OPTIONS = Object.freeze({});

/**
 * The checks of a query class, read once from class-validator's and class-transformer's metadata, or `null` when the
 * class uses something they do not cover (nested or async validation, `each`, conditional constraints, exposed or
 * typed properties): such a class always goes through the `ValidationPipe`.
 */
export function compileQuery(metatype: Type<unknown>): CompiledQuery | null {
  const storage = getMetadataStorage();
  // The arguments the ValidationPipe's `validate()` ends up passing: no schema, no groups, `always` off.
  const metadatas = storage.getTargetValidationMetadatas(metatype, undefined as unknown as string, false, false, undefined);
  const transformer = defaultMetadataStorage;
  if (
    transformer.getStrategy(metatype) !== 'none' ||
    transformer.getExposedProperties(metatype, TransformationType.PLAIN_TO_CLASS).length > 0 ||
    transformer.getExcludedProperties(metatype, TransformationType.PLAIN_TO_CLASS).length > 0
  )
    return null;
  const properties = new Map<string, CompiledProperty>();
  for (const metadata of metadatas) {
    let property = properties.get(metadata.propertyName);
    if (!property) {
      if (transformer.findTypeMetadata(metatype, metadata.propertyName)) return null;
      property = {
        name: metadata.propertyName,
        conditions: [],
        checks: [],
        transforms: transformer
          .findTransformMetadatas(metatype, metadata.propertyName, TransformationType.PLAIN_TO_CLASS)
          .filter((transform) => !transform.options?.groups?.length && transform.options?.since === undefined && transform.options?.until === undefined)
          .map((transform) => transform.transformFn as CompiledProperty['transforms'][number]),
      };
      properties.set(metadata.propertyName, property);
    }
    if (!compileMetadata(metadata, property)) return null;
  }
  const compiled = [...properties.values()];
  // Keys the prototype owns (accessors, methods, Object.prototype's members) are skipped or refused: the pipe decides.
  const inherited = (key: string): boolean => key in metatype.prototype;

  return (query) => {
    const entity = new metatype() as Record<string, unknown>;
    // As class-transformer does: every key of the query in order, its transforms applied to the value as received.
    for (const key of Object.keys(query)) {
      const value = query[key];
      const property = properties.get(key);
      // Repeated parameters (arrays) and anything else the query parser makes of a value: the pipe decides.
      if (typeof value !== 'string' || property === undefined || inherited(key)) return undefined;
      let transformed: unknown = value;
      for (const transform of property.transforms)
        transformed = transform({ value: transformed, key, obj: query, type: TransformationType.PLAIN_TO_CLASS, options: NO_OPTIONS });
      entity[key] = transformed;
    }
    for (const property of compiled) {
      const value = entity[property.name];
      if (!conditionsHold(property, entity, value)) continue;
      for (const { validate, constraints } of property.checks) {
        const args: ValidationArguments = { targetName: metatype.name, property: property.name, object: entity, value, constraints };
        // Only a plain `true` passes here; anything else (false, a promise, a truthy non-boolean) is the pipe's call.
        if (validate(value, args) !== true) return undefined;
      }
    }
    return entity;
  };
}

function conditionsHold(property: CompiledProperty, entity: object, value: unknown): boolean {
  for (const condition of property.conditions) if (!condition(entity, value)) return false;
  return true;
}

function compileMetadata(metadata: ValidationMetadata, property: CompiledProperty): boolean {
  if (metadata.each || metadata.validateIf) return false;
  switch (metadata.type) {
    case ValidationTypes.WHITELIST:
      return true;
    case ValidationTypes.CONDITIONAL_VALIDATION:
      property.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
      return true;
    case ValidationTypes.IS_DEFINED:
    case ValidationTypes.CUSTOM_VALIDATION: {
      const constraints = getMetadataStorage().getTargetValidatorConstraints(metadata.constraintCls);
      if (constraints.length === 0 || constraints.some((constraint) => constraint.async)) return false;
      for (const constraint of constraints) {
        const instance = constraint.instance as { validate: Validate };
        property.checks.push({ validate: instance.validate.bind(instance), constraints: metadata.constraints ?? [] });
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * The global validation pipe with a fast path for query parameters: a query the compiled checks of its class accept
 * is turned into the class's instance as `ValidationPipe` would (same instance, same values, same transforms)
 * without class-transformer's and class-validator's per-request metadata walks; everything else — every query that
 * fails a check, every body, every class the compiler does not cover — goes through the wrapped pipe, so each 400 is
 * the one it has always been. The checks are compiled the first time a class is met.
 */
export class CompiledQueryPipe implements PipeTransform {
  private readonly compiled = new Map<Type<unknown>, CompiledQuery | null>();

  constructor(private readonly fallback: PipeTransform) {}

  transform(value: unknown, metadata: ArgumentMetadata): unknown {
    const metatype = metadata.metatype;
    if (metadata.type === 'query' && metatype && typeof value === 'object' && value !== null && !isBuiltIn(metatype)) {
      let compiled = this.compiled.get(metatype);
      if (compiled === undefined) {
        compiled = compileQuery(metatype);
        this.compiled.set(metatype, compiled);
      }
      const entity = compiled?.(value as Record<string, unknown>);
      if (entity !== undefined) return entity;
    }
    return this.fallback.transform(value, metadata);
  }
}

const BUILT_INS: ReadonlySet<unknown> = new Set([String, Boolean, Number, Array, Object, Buffer, Date]);

/** Types the ValidationPipe does not validate (it converts primitives instead). */
function isBuiltIn(metatype: Type<unknown>): boolean {
  return BUILT_INS.has(metatype);
}
