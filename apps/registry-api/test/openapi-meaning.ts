// What a generated client reads from an OpenAPI document, and nothing else: per path and method the parameters (name,
// in, required, schema), the request body and the responses (status → content type → schema), every $ref resolved.
// Two documents with the same meaning give equal results, whatever their wording, order or component names.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an OpenAPI document

/** `node` with every `$ref` replaced by what it names, and object keys in one order. */
export function resolveRefs(node: unknown, document: Json): unknown {
  if (Array.isArray(node)) return node.map((item) => resolveRefs(item, document));
  if (!node || typeof node !== 'object') return node;
  const object = node as Json;
  if (typeof object.$ref === 'string') {
    const target = (object.$ref as string)
      .replace(/^#\//, '')
      .split('/')
      .reduce<Json>((parent, key) => parent[key] as Json, document);
    return resolveRefs(target, document);
  }
  const keys = Object.keys(object).sort();
  return Object.fromEntries(keys.map((key) => [key, resolveRefs(object[key], document)]));
}

/** The schema keywords a client's types and validation follow (descriptions and examples are documentation). */
function shape(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(shape);
  if (!schema || typeof schema !== 'object') return schema;
  const entries = Object.entries(schema as Json).filter(
    ([key]) => key !== 'description' && key !== 'example' && !key.startsWith('x-'),
  );
  return Object.fromEntries(
    entries.map(([key, value]) => [
      key,
      key === 'properties'
        ? Object.fromEntries(Object.entries(value as Json).map(([name, property]) => [name, shape(property)]))
        : key === 'required' && Array.isArray(value)
          ? [...(value as string[])].sort()
          : shape(value),
    ]),
  );
}

export interface OperationMeaning {
  parameters: Array<{ name: string; in: string; required: boolean; schema: unknown }>;
  requestBody: unknown;
  responses: Record<string, unknown>;
}

/** `METHOD path` → what a client of that operation depends on. */
export function operationMeanings(document: Json): Record<string, OperationMeaning> {
  const meanings: Record<string, OperationMeaning> = {};
  const resolved = resolveRefs(document.paths, document) as Json;
  for (const [path, item] of Object.entries(resolved)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      const parameters = ((operation as Json).parameters ?? []) as Json[];
      meanings[`${method.toUpperCase()} ${path}`] = {
        parameters: parameters
          .map((parameter) => ({
            name: parameter.name as string,
            in: parameter.in as string,
            required: parameter.required === true,
            schema: shape(parameter.schema),
          }))
          .sort((a, b) => `${a.in} ${a.name}`.localeCompare(`${b.in} ${b.name}`)),
        requestBody: shape((operation as Json).requestBody ?? null),
        responses: Object.fromEntries(
          Object.entries(((operation as Json).responses ?? {}) as Json).map(([status, response]) => [
            status,
            Object.fromEntries(
              Object.entries(((response as Json).content ?? {}) as Json).map(([type, media]) => [
                type,
                shape((media as Json).schema),
              ]),
            ),
          ]),
        ),
      };
    }
  }
  return meanings;
}
