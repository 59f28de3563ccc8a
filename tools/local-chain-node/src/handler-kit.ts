import { status } from '@grpc/grpc-js';
import { ChainNodeError, PageRequestInput } from './paginate';

export type Plain = Record<string, unknown>;
export type QueryHandler = (request: Plain) => Plain;
/** Handlers by service name, then by method name. Methods without one answer UNIMPLEMENTED, as on an older node. */
export type QueryHandlers = Record<string, Record<string, QueryHandler>>;

export function required(request: Plain, field: string): string {
  const value = request[field];
  if (typeof value !== 'string' || value.length === 0) {
    throw new ChainNodeError(status.INVALID_ARGUMENT, `${field} cannot be empty`);
  }
  return value;
}

export function page(request: Plain): PageRequestInput | undefined {
  return request.pagination as PageRequestInput | undefined;
}

export function str(field: string): (item: Plain) => string {
  return (item) => String(item[field]);
}

// The entity and iid modules answer NOT_FOUND for a missing record; the claims and token modules wrap their
// registered errors in UNKNOWN ("... code 1100: claim not found"), as the public chain does. Both are kept so the
// gateway's handling of each can be exercised.
export function notFound(message: string): ChainNodeError {
  return new ChainNodeError(status.NOT_FOUND, message);
}
export function unknownNotFound(what: string, id: string, code: number): ChainNodeError {
  return new ChainNodeError(status.UNKNOWN, `${what} ${id}: code ${code}: ${what} not found`);
}
