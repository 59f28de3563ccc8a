import { Metadata } from '@grpc/grpc-js';
import { answerHeaders, SentOnCall, sentOnCall } from './answer-headers';

const metadataOf = (entries: Record<string, string>): Metadata => {
  const metadata = new Metadata();
  for (const [key, value] of Object.entries(entries))
    metadata.set(key, key.endsWith('-bin') ? Buffer.from(value) : value);
  return metadata;
};

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const sent = sentOnCall(
  metadataOf({
    'x-request-id': 'req-1',
    traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
    tracestate: 'vendor=a',
  }),
);

describe("answerHeaders: what of the node's metadata an answer carries", () => {
  it('reads what the call sent from its metadata', () => {
    expect(sent).toEqual({ requestId: 'req-1', traceId: TRACE_ID, tracestate: 'vendor=a' });
    expect(sentOnCall(new Metadata())).toEqual({
      requestId: undefined,
      traceId: undefined,
      tracestate: undefined,
    });
  });

  it.each<[string, Record<string, string>, Record<string, string>, SentOnCall?]>([
    ['a header of the node', { tenant: 'acme' }, { 'grpc-metadata-tenant': 'acme' }],
    [
      'the height, also as x-cosmos-block-height',
      { 'x-cosmos-block-height': '42' },
      { 'grpc-metadata-x-cosmos-block-height': '42', 'x-cosmos-block-height': '42' },
    ],
    [
      'the height even when it reads like the request id',
      { 'x-cosmos-block-height': '42' },
      { 'grpc-metadata-x-cosmos-block-height': '42', 'x-cosmos-block-height': '42' },
      { requestId: '42' },
    ],
    ['an echo of the request id, under any name', { 'x-echo-x-request-id': 'req-1', 'x-seen': 'req-1' }, {}],
    ['an echo of the tracestate', { 'x-echo-tracestate': 'vendor=a' }, {}],
    [
      'anything carrying the trace id (an echoed traceparent, a traceresponse)',
      {
        'x-echo-traceparent': `00-${TRACE_ID}-1111111111111111-01`,
        traceresponse: `00-${TRACE_ID}-2222222222222222-01`,
      },
      {},
    ],
    [
      'the per-request names themselves',
      { 'x-request-id': 'other', traceparent: 'other', tracestate: 'other' },
      {},
    ],
    [
      'transport and binary entries',
      { server: 'node', date: 'today', 'grpc-status': '0', 'x-blob-bin': 'AAAA' },
      {},
    ],
    [
      'a value that only contains the request id',
      { 'x-note': 'req-10' },
      { 'grpc-metadata-x-note': 'req-10' },
    ],
  ])('%s', (_case, node, carried, call = sent) => {
    expect(answerHeaders(metadataOf(node), new Metadata(), call)).toEqual(carried);
  });

  it('treats trailers alike, as grpc-trailer-*', () => {
    expect(
      answerHeaders(new Metadata(), metadataOf({ 'x-echo-x-request-id': 'req-1', 'x-total': '7' }), sent),
    ).toEqual({ 'grpc-trailer-x-total': '7' });
  });
});
