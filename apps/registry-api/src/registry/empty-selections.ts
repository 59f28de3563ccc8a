import { REGISTRY_PAGE_LIMIT_DEFAULT } from '@dmrv/contracts';
import { NotFoundError } from '@dmrv/errors';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an OpenAPI schema

/** The earliest day the API accepts or writes; what a zero date means to clients that parse dates. */
export const ZERO_DATE = '0001-01-01';
export const ZERO_DATE_TIME = '0001-01-01T00:00:00.000Z';

/**
 * The zero value of a schema of the OpenAPI document: every property present, strings empty (dates and date-times the
 * earliest day, so a client that parses them still can), numbers 0, booleans false, arrays empty, nullable values
 * null.
 */
export function zeroValue(schema: Json, schemas: Record<string, Json>): unknown {
  if (typeof schema.$ref === 'string')
    return zeroValue(schemas[schema.$ref.replace('#/components/schemas/', '')]!, schemas);
  if (schema.nullable === true) return null;
  switch (schema.type) {
    case 'string':
      return schema.format === 'date' ? ZERO_DATE : schema.format === 'date-time' ? ZERO_DATE_TIME : '';
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default:
      return Object.fromEntries(
        Object.entries((schema.properties ?? {}) as Record<string, Json>).map(([name, property]) => [
          name,
          zeroValue(property, schemas),
        ]),
      );
  }
}

/** The zero 200 body of every operation of the document, by operationId. */
export function zeroBodies(document: Json): Map<string, unknown> {
  const schemas = document.components.schemas as Record<string, Json>;
  const bodies = new Map<string, unknown>();
  for (const item of Object.values(document.paths as Record<string, Json>)) {
    const get = item.get as Json;
    const schema = get.responses?.['200']?.content?.['application/json']?.schema as Json | undefined;
    if (schema) bodies.set(get.operationId as string, zeroValue(schema, schemas));
  }
  return bodies;
}

/**
 * `EMPTY_AS`: whether a selection that names nothing is a 404 (the default: the most useful answer, additive to the
 * contract) or the zero value of the operation's 200 shape. Only `NotFoundError`s thrown while answering a route
 * become zeros; a 404 for an unknown path, and every other error, stay as they are.
 */
export class EmptySelections {
  private zeros = new Map<string, unknown>();

  constructor(private readonly mode: '404' | 'zero') {}

  /** The zero 200 bodies, by operationId (`zeroBodies` of the served document): set before the app serves. */
  useZeros(zeros: Map<string, unknown>): this {
    this.zeros = zeros;
    return this;
  }

  /** `work`'s answer; with EMPTY_AS=zero, the zero value of the operation's 200 schema (a `T`) instead of a 404. */
  async answer<T>(operationId: string, work: () => Promise<T>, limit?: number): Promise<T> {
    if (this.mode === '404') return work();
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error;
      return this.zeroOf(operationId, limit) as T;
    }
  }

  zeroOf(operationId: string, limit?: number): unknown {
    const zero = structuredClone(this.zeros.get(operationId));
    if (zero === undefined) throw new Error(`no zero value for ${operationId}`);
    // A page says which page size it was read with, empty or not.
    const page = zero as { page_info?: { limit: number } };
    if (page.page_info) page.page_info.limit = limit ?? REGISTRY_PAGE_LIMIT_DEFAULT;
    return zero;
  }
}
