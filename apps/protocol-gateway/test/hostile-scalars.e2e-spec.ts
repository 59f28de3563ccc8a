import { Server, ServerCredentials, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { loadProtoRoot, PROTO_ROOT, QUERY_PROTO_FILES } from '@dmrv/proto';
import { Gateway, startGateway } from './harness';

jest.setTimeout(60_000);

const TEN_TO_THE_80 = `1${'0'.repeat(80)}`;
const root = loadProtoRoot(QUERY_PROTO_FILES, [PROTO_ROOT]);
const claimsParams = root.lookupType('ixo.claims.v1beta1.QueryParamsResponse');
const tokenDoc = root.lookupType('ixo.token.v1beta1.QueryTokenDocResponse');

/**
 * A node that answers two queries with whatever LegacyDec and Uint text the test sets, over real gRPC (no reflection:
 * the gateway serves its compiled-in routes, whose protos carry the customtypes).
 */
async function hostileNode(): Promise<{
  address: string;
  set(dec: string, uint: string): void;
  stop(): Promise<void>;
}> {
  let values = { dec: '0', uint: '0' };
  const server = new Server();
  const answer =
    (encode: () => Uint8Array) =>
    (_call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>): void =>
      callback(null, Buffer.from(encode()));
  const identity = (value: Buffer): Buffer => value;
  server.register(
    '/ixo.claims.v1beta1.Query/Params',
    answer(() =>
      claimsParams
        .encode(
          claimsParams.fromObject({
            params: { network_fee_percentage: values.dec, node_fee_percentage: '1' },
          }),
        )
        .finish(),
    ),
    identity,
    identity,
    'unary',
  );
  server.register(
    '/ixo.token.v1beta1.Query/TokenDoc',
    answer(() =>
      tokenDoc
        .encode(tokenDoc.fromObject({ tokenDoc: { name: 'CARBON', cap: values.uint, supply: values.uint } }))
        .finish(),
    ),
    identity,
    identity,
    'unary',
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    set: (dec, uint) => {
      values = { dec, uint };
    },
    stop: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

// Issue 32, item 4: a node is an input like a client. Whatever it puts in a LegacyDec or a Uint, the gateway prints
// every digit of what the type can hold, refuses what it cannot read with its own 500 (never the node's text), and goes
// on serving.
describe('hostile LegacyDec and Uint values from a node, over real gRPC', () => {
  let node: Awaited<ReturnType<typeof hostileNode>>;
  let gateway: Gateway;

  beforeAll(async () => {
    node = await hostileNode();
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
  });

  const DOC = '/ixo/token/minter/ixo1minter/ixo1contract';

  it.each([
    ['10^80', TEN_TO_THE_80, `1${'0'.repeat(62)}.${'0'.repeat(18)}`],
    ['over-long (50,000 digits)', `7${'3'.repeat(49_999)}`, `7${'3'.repeat(49_999 - 18)}.${'3'.repeat(18)}`],
    ['signed', `-${TEN_TO_THE_80}`, `-1${'0'.repeat(62)}.${'0'.repeat(18)}`],
    ['with a plus sign', '+1500000000000000000', '1.500000000000000000'],
  ])('LegacyDec %s: 200, every digit printed', async (_case, wire, printed) => {
    node.set(wire, '0');
    const answer = await gateway.get('/ixo/claims/params');
    expect([answer.status, answer.body.params.network_fee_percentage]).toEqual([200, printed]);
  });

  it.each([
    ['with an exponent', '1e80'],
    ['with letters', '0xff'],
    ['with a decimal point', '1.5'],
  ])('LegacyDec %s: 500 in our words, then the next answer as usual', async (_case, wire) => {
    node.set(wire, '0');
    const refused = await gateway.get('/ixo/claims/params');
    expect({ status: refused.status, body: refused.body }).toEqual({
      status: 500,
      body: { code: 13, message: 'the upstream answer could not be converted to JSON', details: [] },
    });
    node.set('1500000000000000000', '0');
    expect((await gateway.get('/ixo/claims/params')).body.params.network_fee_percentage).toBe(
      '1.500000000000000000',
    );
  });

  it.each([
    ['10^80', TEN_TO_THE_80],
    ['over-long (50,000 digits)', `9${'1'.repeat(49_999)}`],
    ['signed', '-42'],
    ['with an exponent', '1e80'],
    ['not a number at all', 'NaN", "paused": true, "x": "'],
  ])('Uint %s: 200, printed as the node sent it', async (_case, wire) => {
    node.set('0', wire);
    const answer = await gateway.get(DOC);
    expect([
      answer.status,
      answer.body.tokenDoc.cap,
      answer.body.tokenDoc.supply,
      answer.body.tokenDoc.paused,
    ]).toEqual([200, wire, wire, false]);
  });
});
