import { ArgumentMetadata, BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix + error.property;
    const own = error.constraints ? Object.values(error.constraints) : [];
    return [...own, ...describe(error.children ?? [], `${path}.`)];
  });
}

function unknownPropertyMessage(keys: string[]): string {
  return keys.map((key) => `property ${key} should not exist`).join('; ');
}

/** How many validated query objects a pipe remembers (the oldest is forgotten first). */
export const REMEMBERED_QUERIES = 5000;

/**
 * class-transformer never copies a key named like a member of Object.prototype (`__proto__`, `constructor`,
 * `toString`…) onto the DTO, and Nest's ValidationPipe deletes `__proto__`, `constructor` and `prototype` before
 * validating, so the whitelist never sees them and `?prototype=x` would pass where `?foo=x` is a 400. Such keys
 * are refused here with the whitelist's own message; no DTO can declare them.
 *
 * A query string a pipe has already validated into a DTO is answered with that DTO, frozen, instead of being
 * transformed and validated again: the result depends only on the DTO class and the query, and clients repeat the
 * same few queries (a dashboard polling an aggregate, a sync's first page), while class-validator's per-call work
 * was the largest share of the CPU of an answer served from memory. Bounded (REMEMBERED_QUERIES); a refused query
 * is not remembered.
 */
class StrictValidationPipe extends ValidationPipe {
  private readonly rememberedQueries = new Map<string, object>();
  private readonly classIds = new Map<unknown, number>();

  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (typeof value !== 'object' || value === null || !this.toValidate(metadata))
      return super.transform(value, metadata);
    const inherited = Object.keys(value).filter((key) => key in Object.prototype || key === 'prototype');
    if (inherited.length > 0) throw new BadRequestException(unknownPropertyMessage(inherited));
    if (metadata.type !== 'query') return super.transform(value, metadata);
    const key = `${this.classId(metadata.metatype)}:${JSON.stringify(value)}`;
    const remembered = this.rememberedQueries.get(key);
    if (remembered !== undefined) return remembered;
    const validated = (await super.transform(value, metadata)) as object;
    deepFreeze(validated);
    if (this.rememberedQueries.size >= REMEMBERED_QUERIES) {
      this.rememberedQueries.delete(this.rememberedQueries.keys().next().value as string);
    }
    this.rememberedQueries.set(key, validated);
    return validated;
  }

  private classId(metatype: unknown): number {
    let id = this.classIds.get(metatype);
    if (id === undefined) {
      id = this.classIds.size;
      this.classIds.set(metatype, id);
    }
    return id;
  }
}

/** A remembered DTO is shared by every request that sent the same query: nothing may change it. */
function deepFreeze(value: object): void {
  Object.freeze(value);
  for (const child of Object.values(value)) {
    if (typeof child === 'object' && child !== null && !Object.isFrozen(child)) deepFreeze(child as object);
  }
}

/**
 * Validation that rejects instead of ignoring: unknown properties/query parameters are a 400, and the message
 * is one string naming each offending field (clients of our contracts expect `message: string`).
 */
export function strictValidationPipe(): ValidationPipe {
  return new StrictValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(describe(errors).join('; ')),
  });
}
