import type { Metadata } from '@grpc/grpc-js';
import { PER_REQUEST_METADATA } from '../caching/answer-cache';

export const BLOCK_HEIGHT_HEADER = 'x-cosmos-block-height';
export const METADATA_HEADER_PREFIX = 'grpc-metadata-';
// What grpc-js reports as metadata but a Go node never would: HTTP/2 transport headers.
const NOT_FORWARDED_BACK = /^(grpc-|:)|^(content-type|date|te|user-agent|server)$/;

/** What one call sent that no other request sends: its request id and the gateway's trace context. */
export interface SentOnCall {
  requestId?: string;
  /** The trace id of the `traceparent` sent (a hedged call sends one per attempt, all in this trace). */
  traceId?: string;
  tracestate?: string;
}

/** Read from the call's metadata once it is done: the trace context is written into it as each attempt starts. */
export function sentOnCall(metadata: Metadata): SentOnCall {
  const text = (key: string): string | undefined => {
    const value = metadata.get(key)[0];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return {
    requestId: text('x-request-id'),
    traceId: text('traceparent')?.split('-')[1],
    tracestate: text('tracestate'),
  };
}

/** A value the node can only have taken from this call's own request id or trace context. */
function repeatsCall(value: string, sent: SentOnCall): boolean {
  return (
    value === sent.requestId ||
    value === sent.tracestate ||
    (sent.traceId !== undefined && sent.traceId.length === 32 && value.includes(sent.traceId))
  );
}

/**
 * The node's headers and trailers as the answer carries them: `grpc-metadata-<key>` and `grpc-trailer-<key>` (the
 * height also as `x-cosmos-block-height`), without transport or binary entries. Entries that repeat what this call
 * alone sent (`PER_REQUEST_METADATA`: a node or a proxy before it that echoes the request id, a tracing node that
 * answers with the trace id) are left out: the answer is then the same whoever asked, so it can be kept and joined
 * by identical questions without handing one caller's request id or trace to the next. The height is the node's
 * own and always kept.
 */
export function answerHeaders(
  headers: Metadata,
  trailers: Metadata,
  sent: SentOnCall,
): Record<string, string> {
  const out: Record<string, string> = {};
  const carried = (key: string, value: unknown): value is string =>
    typeof value === 'string' &&
    !key.endsWith('-bin') &&
    !NOT_FORWARDED_BACK.test(key) &&
    !PER_REQUEST_METADATA.has(key) &&
    (key === BLOCK_HEIGHT_HEADER || !repeatsCall(value, sent));
  for (const [key, value] of Object.entries(headers.getMap())) {
    if (!carried(key, value)) continue;
    out[`${METADATA_HEADER_PREFIX}${key}`] = value;
    if (key === BLOCK_HEIGHT_HEADER) out[BLOCK_HEIGHT_HEADER] = value;
  }
  for (const [key, value] of Object.entries(trailers.getMap())) {
    if (carried(key, value)) out[`grpc-trailer-${key}`] = value;
  }
  return out;
}
