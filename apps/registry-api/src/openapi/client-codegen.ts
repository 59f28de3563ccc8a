// Renders the typed part of @dmrv/registry-client from the OpenAPI document this service serves: one interface per
// component schema, one query type and one method per GET operation. Written here rather than taken from a generator
// package: the document uses a small, fixed subset of OpenAPI 3.0 (objects, strings, numbers, integers, booleans,
// arrays, $ref, nullable, required, query parameters), and the output must be stable text that a test can compare.

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- walking an OpenAPI document

const HEADER = `// Generated from the registry API's OpenAPI document by \`node scripts/generate-registry-client.mjs\`. Do not edit:
// registry-client-current.spec.ts fails when this file is not what the generator makes of the served document.
/* eslint-disable */
`;

function refName(ref: string): string {
  return ref.replace('#/components/schemas/', '');
}

function docComment(text: string | undefined, indent: string): string {
  if (!text) return '';
  return `${indent}/** ${text.replace(/\*\//g, '*\\/')} */\n`;
}

function typeOf(schema: Json, indent: string): string {
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  let type: string;
  switch (schema.type) {
    case 'string':
      type = 'string';
      break;
    case 'integer':
    case 'number':
      type = 'number';
      break;
    case 'boolean':
      type = 'boolean';
      break;
    case 'array':
      type = `Array<${typeOf(schema.items as Json, indent)}>`;
      break;
    case 'object':
      type = objectType(schema, indent);
      break;
    default:
      type = 'unknown';
  }
  return schema.nullable === true ? `${type} | null` : type;
}

function objectType(schema: Json, indent: string): string {
  const required = new Set((schema.required ?? []) as string[]);
  const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>);
  if (properties.length === 0) return 'Record<string, unknown>';
  const inner = `${indent}  `;
  const lines = properties.map(
    ([name, property]) =>
      `${docComment(property.description as string | undefined, inner)}${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};\n`,
  );
  return `{\n${lines.join('')}${indent}}`;
}

function pascal(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}

interface GetOperation {
  path: string;
  operationId: string;
  summary?: string;
  parameters: Json[];
  response: string;
}

function operationsOf(document: Json): GetOperation[] {
  const operations: GetOperation[] = [];
  for (const [path, item] of Object.entries(document.paths as Record<string, Json>)) {
    const get = item.get as Json | undefined;
    if (!get) continue;
    const schema = get.responses?.['200']?.content?.['application/json']?.schema as Json | undefined;
    operations.push({
      path,
      operationId: get.operationId as string,
      summary: get.summary as string | undefined,
      parameters: ((get.parameters ?? []) as Json[]).filter((parameter) => parameter.in === 'query'),
      response: schema ? typeOf(schema, '') : 'unknown',
    });
  }
  return operations;
}

/** The operations whose answer is one page of a collection (a `data` array and `page_info`). */
function isPage(document: Json, response: string): boolean {
  const schema = (document.components?.schemas as Record<string, Json> | undefined)?.[response];
  return Boolean(schema?.properties?.data && schema.properties.page_info);
}

export function renderClient(document: Json): string {
  const out: string[] = [HEADER];
  out.push(
    `/** The document this client was generated from: ${String(document.info?.title)} ${String(document.info?.version)}. */\n`,
  );
  out.push(`export const API_VERSION = ${JSON.stringify(String(document.info?.version))};\n\n`);
  for (const [name, schema] of Object.entries((document.components?.schemas ?? {}) as Record<string, Json>)) {
    out.push(docComment(schema.description as string | undefined, ''));
    out.push(`export interface ${name} ${objectType(schema, '')}\n\n`);
  }
  const operations = operationsOf(document);
  for (const operation of operations) {
    const lines = operation.parameters.map(
      (parameter) =>
        `${docComment(parameter.description as string | undefined, '  ')}  ${String(parameter.name)}${parameter.required === true ? '' : '?'}: ${typeOf(parameter.schema as Json, '  ')};\n`,
    );
    out.push(`export interface ${pascal(operation.operationId)}Query {\n${lines.join('')}}\n\n`);
  }
  out.push('/** Every GET operation: its path, its query and its 200 body. */\n');
  out.push('export interface Operations {\n');
  for (const operation of operations) {
    out.push(
      `  ${operation.operationId}: { path: ${JSON.stringify(operation.path)}; query: ${pascal(operation.operationId)}Query; response: ${operation.response} };\n`,
    );
  }
  out.push('}\n\n');
  out.push("export const OPERATION_PATHS: { [K in keyof Operations]: Operations[K]['path'] } = {\n");
  for (const operation of operations)
    out.push(`  ${operation.operationId}: ${JSON.stringify(operation.path)},\n`);
  out.push('};\n\n');
  const lists = operations.filter((operation) => isPage(document, operation.response));
  out.push('/** The collection operations, which `RegistryClient.paginate` walks page by page. */\n');
  out.push(
    `export type ListOperationId = ${lists.map((operation) => JSON.stringify(operation.operationId)).join(' | ')};\n\n`,
  );
  out.push('/** One method per operation; `RegistryClient` supplies the transport. */\n');
  out.push('export abstract class RegistryOperations {\n');
  out.push(
    "  protected abstract request<K extends keyof Operations>(operationId: K, query: Operations[K]['query'] | undefined): Promise<Operations[K]['response']>;\n",
  );
  for (const operation of operations) {
    const required = operation.parameters.some((parameter) => parameter.required === true);
    const query = `query${required ? '' : '?'}: ${pascal(operation.operationId)}Query`;
    out.push(`\n${docComment(`${operation.summary ?? operation.operationId}: GET ${operation.path}`, '  ')}`);
    out.push(`  ${operation.operationId}(${query}): Promise<${operation.response}> {\n`);
    out.push(`    return this.request(${JSON.stringify(operation.operationId)}, query);\n`);
    out.push('  }\n');
  }
  out.push('}\n');
  return out.join('');
}
