import { Enum, Field, Type } from 'protobufjs';
import type { Route } from '../routes/route-table';
import { isTextMessage, jsonName } from '../transcoding/query-binder';
import { enumParameterSchema, Json, MessageSchemas } from './openapi-schemas';

// Nested query keys deeper than this are left out of the document (the binder still takes them).
const MAX_QUERY_DEPTH = 3;

/** `/ixo/claims/intent/{agentAddress}/{collectionId}/{id}`: a variable spanning several segments becomes one. */
export function openApiPath(route: Route): string {
  const { segments, variables, verb } = route.template;
  const parts: string[] = [];
  for (let index = 0; index < segments.length; index += 1) {
    const variable = variables.find((candidate) => candidate.start === index);
    if (variable) {
      parts.push(`{${variable.fieldPath}}`);
      index = variable.end - 1;
      continue;
    }
    const segment = segments[index]!;
    parts.push(segment.kind === 'literal' ? segment.value : segment.kind === 'wildcard' ? '*' : '**');
  }
  return `/${parts.join('/')}${verb ? `:${verb}` : ''}`;
}

function fieldAt(type: Type, fieldPath: string): Field | undefined {
  let current: Type | undefined = type;
  let field: Field | undefined;
  for (const part of fieldPath.split('.')) {
    field = current?.fields[part];
    current = field?.resolvedType instanceof Type ? field.resolvedType : undefined;
  }
  return field;
}

/** The path variables of `route`, typed from its request message (an enum by name). */
export function pathParameters(route: Route, schemas: MessageSchemas): Json[] {
  return route.template.variables.map((variable) => {
    const field = fieldAt(route.requestType, variable.fieldPath);
    const resolved = field?.resolvedType;
    return {
      name: variable.fieldPath,
      in: 'path',
      required: true,
      schema: !field
        ? { type: 'string' }
        : resolved instanceof Enum
          ? enumParameterSchema(resolved)
          : schemas.valueSchema(field),
    };
  });
}

/** Query parameters of `type` not bound by the path: scalars, enums, text-set messages, nested fields as `a.b`. */
export function queryParameters(
  type: Type,
  bound: ReadonlySet<string>,
  schemas: MessageSchemas,
  prefix = '',
  depth = 0,
): Json[] {
  const parameters: Json[] = [];
  for (const field of type.fieldsArray) {
    const path = `${prefix}${field.name}`;
    if (bound.has(path) || field.map) continue;
    const resolved = field.resolvedType;
    if (resolved instanceof Type && !isTextMessage(resolved.fullName)) {
      if (!field.repeated && depth < MAX_QUERY_DEPTH)
        parameters.push(...queryParameters(resolved, bound, schemas, `${path}.`, depth + 1));
      continue;
    }
    const value = resolved instanceof Enum ? enumParameterSchema(resolved) : schemas.valueSchema(field);
    const alias = `${prefix}${jsonName(field.name)}`;
    parameters.push({
      name: path,
      in: 'query',
      required: false,
      ...(alias !== path ? { description: `also accepted as ${alias}` } : {}),
      schema: field.repeated ? { type: 'array', items: value } : value,
      ...(field.repeated ? { style: 'form', explode: true } : {}),
    });
  }
  return parameters;
}
