/**
 * google.api.http path templates:
 *   Template = "/" Segments [ ":" Verb ] ;  Segment = "*" | "**" | LITERAL | Variable ;
 *   Variable = "{" FieldPath [ "=" Segments ] "}"
 * A variable without a pattern is `{f=*}`: exactly one segment.
 */
export type TemplateSegment = { kind: 'literal'; value: string } | { kind: 'wildcard' } | { kind: 'rest' };

export interface TemplateVariable {
  /** Dotted proto field path, e.g. `id` or `pagination.key`. */
  fieldPath: string;
  /** Index of the first segment the variable spans, and one past the last. */
  start: number;
  end: number;
}

export interface PathTemplate {
  source: string;
  segments: TemplateSegment[];
  variables: TemplateVariable[];
  verb?: string;
}

export class TemplateSyntaxError extends Error {
  constructor(template: string, problem: string) {
    super(`invalid path template ${JSON.stringify(template)}: ${problem}`);
    this.name = 'TemplateSyntaxError';
  }
}

const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const LITERAL = /^[A-Za-z0-9._~!$&'()+,;=@:-]+$/;

function parseSegment(template: string, text: string): TemplateSegment {
  if (text === '*') return { kind: 'wildcard' };
  if (text === '**') return { kind: 'rest' };
  if (!LITERAL.test(text)) throw new TemplateSyntaxError(template, `bad segment ${JSON.stringify(text)}`);
  return { kind: 'literal', value: text };
}

export function parsePathTemplate(template: string): PathTemplate {
  if (!template.startsWith('/')) throw new TemplateSyntaxError(template, 'must start with /');
  let body = template.slice(1);
  let verb: string | undefined;
  // A verb is the text after the last ':' outside braces (DIDs inside a literal are not expected in templates).
  const lastBrace = body.lastIndexOf('}');
  const colon = body.indexOf(':', lastBrace + 1);
  if (colon !== -1) {
    verb = body.slice(colon + 1);
    body = body.slice(0, colon);
  }
  const segments: TemplateSegment[] = [];
  const variables: TemplateVariable[] = [];
  let i = 0;
  while (i <= body.length) {
    if (body[i] === '{') {
      const close = body.indexOf('}', i);
      if (close === -1) throw new TemplateSyntaxError(template, 'unclosed {');
      const inner = body.slice(i + 1, close);
      const [fieldPath, pattern] = inner.includes('=')
        ? [inner.slice(0, inner.indexOf('=')), inner.slice(inner.indexOf('=') + 1)]
        : [inner, '*'];
      if (!FIELD_PATH.test(fieldPath!))
        throw new TemplateSyntaxError(template, `bad field path ${JSON.stringify(fieldPath)}`);
      if (variables.some((variable) => variable.fieldPath === fieldPath)) {
        throw new TemplateSyntaxError(template, `field ${fieldPath} bound twice`);
      }
      const start = segments.length;
      for (const part of pattern!.split('/')) segments.push(parseSegment(template, part));
      variables.push({ fieldPath: fieldPath!, start, end: segments.length });
      i = close + 1;
    } else {
      const slash = body.indexOf('/', i);
      const end = slash === -1 ? body.length : slash;
      segments.push(parseSegment(template, body.slice(i, end)));
      i = end;
    }
    if (i >= body.length) break;
    if (body[i] !== '/') throw new TemplateSyntaxError(template, `expected / at ${i + 1}`);
    i += 1;
  }
  const rest = segments.findIndex((segment) => segment.kind === 'rest');
  if (rest !== -1 && rest !== segments.length - 1)
    throw new TemplateSyntaxError(template, '** must be the last segment');
  return { source: template, segments, variables, verb };
}
