/**
 * An error that the domain raises on purpose. It carries a stable string code (for logs and clients) and the
 * HTTP status it translates to at the edge; transports other than HTTP map the code themselves.
 */
export class DomainError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class InvalidInputError extends DomainError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('INVALID_INPUT', message, 400, details);
  }
}

export class UnauthenticatedError extends DomainError {
  constructor(
    message = 'Authentication required',
    /** Value of the WWW-Authenticate header to send with the 401. */
    readonly challenge?: string,
  ) {
    super('UNAUTHENTICATED', message, 401);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Forbidden') {
    super('FORBIDDEN', message, 403);
  }
}

export class NotFoundError extends DomainError {
  constructor(message: string) {
    super('NOT_FOUND', message, 404);
  }
}

export class DependencyUnavailableError extends DomainError {
  constructor(dependency: string, cause?: unknown) {
    super('DEPENDENCY_UNAVAILABLE', `${dependency} is unavailable`, 503);
    if (cause !== undefined) this.cause = cause;
  }
}
