import { BadRequestException, ValidationError, ValidationPipe } from '@nestjs/common';

function describe(errors: ValidationError[], prefix = ''): string[] {
  return errors.flatMap((error) => {
    const path = prefix + error.property;
    const own = error.constraints ? Object.values(error.constraints) : [];
    return [...own, ...describe(error.children ?? [], `${path}.`)];
  });
}

/**
 * Validation that rejects instead of ignoring: unknown properties/query parameters are a 400, and the message
 * is one string naming each offending field (clients of our contracts expect `message: string`).
 */
export function strictValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    stopAtFirstError: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new BadRequestException(describe(errors).join('; ')),
  });
}
