/**
 * Small builders for OpenAPI 3 documents written out in code (registry-api's and the USSD gateway's operator
 * document): the same `$ref`, JSON content and `{message}` error response everywhere.
 */
export type OpenApiJson = Record<string, unknown>;

export const schemaRef = (name: string): OpenApiJson => ({ $ref: `#/components/schemas/${name}` });

export const jsonContent = (schema: OpenApiJson): OpenApiJson => ({ 'application/json': { schema } });

/** A response whose body is the shared error body (`components.schemas.Error`, see MESSAGE_ERROR_SCHEMA). */
export const errorResponse = (description: string): OpenApiJson => ({
  description,
  content: jsonContent(schemaRef('Error')),
});

/** The `{message}` error body every service answers with. */
export const MESSAGE_ERROR_SCHEMA: OpenApiJson = {
  type: 'object',
  required: ['message'],
  properties: { message: { type: 'string' } },
};

export function queryParameter(
  name: string,
  description: string,
  schema: OpenApiJson = { type: 'string' },
): OpenApiJson {
  return { name, in: 'query', required: false, description, schema };
}
