import {
  type BareItem,
  type InnerList,
  type Item,
  serializeInnerList,
  serializeItem,
} from 'structured-headers';
import type { ComponentId } from './profile';

/** The signature parameters we write (RFC 9421 §2.3), in this order. */
export interface SignatureParameters {
  /** Seconds since the epoch. */
  created: number;
  keyid: string;
  alg: string;
  tag: string;
}

export interface CoveredValue {
  id: ComponentId;
  value: string;
}

function itemOf(id: ComponentId): Item {
  const parameters = new Map<string, BareItem>();
  if (id.req === true) parameters.set('req', true);
  return [id.name, parameters];
}

/** `"@method";req` and the like: a component identifier as a line of the signature base names it (§2.5). */
export function componentIdentifier(id: ComponentId): string {
  return serializeItem(itemOf(id));
}

/** The `Signature-Input` member's value, which is also the value of `@signature-params` in the signature base. */
export function signatureParamsValue(
  components: readonly ComponentId[],
  parameters: SignatureParameters,
): string {
  const list: InnerList = [
    components.map(itemOf),
    new Map<string, BareItem>([
      ['created', parameters.created],
      ['keyid', parameters.keyid],
      ['alg', parameters.alg],
      ['tag', parameters.tag],
    ]),
  ];
  return serializeInnerList(list);
}

/** An inner list as received, serialised again: structured fields serialise canonically, so signer and verifier agree. */
export function serializedParams(list: InnerList): string {
  return serializeInnerList(list);
}

/** RFC 9421 §2.1: each field line's value trimmed, several lines joined by ", ". */
export function fieldValue(lines: readonly string[]): string {
  return lines.map((line) => line.trim()).join(', ');
}

/** RFC 9421 §2.5: one line per covered component, then `@signature-params`; no trailing newline. */
export function signatureBase(covered: readonly CoveredValue[], paramsValue: string): string {
  let base = '';
  for (const { id, value } of covered) base += `${componentIdentifier(id)}: ${value}\n`;
  return `${base}"@signature-params": ${paramsValue}`;
}
