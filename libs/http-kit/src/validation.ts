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

/**
 * class-transformer never copies a key named like a member of Object.prototype (`__proto__`, `constructor`,
 * `toString`…) onto the DTO, and Nest's ValidationPipe deletes `__proto__`, `constructor` and `prototype` before
 * validating, so the whitelist never sees them and `?prototype=x` would pass where `?foo=x` is a 400. Such keys
 * are refused here with the whitelist's own message; no DTO can declare them.
 */
class StrictValidationPipe extends ValidationPipe {
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    if (typeof value === 'object' && value !== null && this.toValidate(metadata)) {
      const inherited = Object.keys(value).filter((key) => key in Object.prototype || key === 'prototype');
      if (inherited.length > 0) throw new BadRequestException(unknownPropertyMessage(inherited));
    }
    return super.transform(value, metadata);
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
