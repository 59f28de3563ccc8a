import { entityDid } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

jest.setTimeout(60_000);

// The local chain node sends LegacyDec fields as the chain does: the value scaled by 10^18 ("1500000000000000000").
describe.each([
  ['descriptors from reflection', true],
  ['compiled-in descriptors (a node without reflection)', false],
])('LegacyDec fields over real gRPC, %s', (_name, reflection) => {
  let node: LocalChainNode;
  let gateway: Gateway;

  beforeAll(async () => {
    node = await startNode({ reflection });
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
  });

  afterAll(async () => {
    await gateway.close();
    await node.stop();
  });

  it("print with 18 decimals, as the chain's REST prints them", async () => {
    expect((await gateway.get('/')).body.upstream.reflection).toBe(reflection ? 'known' : 'unsupported');
    const params = await gateway.get('/ixo/claims/params');
    expect([
      params.status,
      params.body.params.network_fee_percentage,
      params.body.params.node_fee_percentage,
    ]).toEqual([200, '1.500000000000000000', '0.500000000000000000']);
  });

  it('print zero as "0.000000000000000000", inside repeated messages too', async () => {
    const adjudicators = async (id: string): Promise<unknown> =>
      (await gateway.get(`/ixo/claims/collection/${id}`)).body.collection.adjudicators;
    expect(await adjudicators('2')).toEqual([
      { did: entityDid(4), reward_percentage: '0.000000000000000000' },
    ]);
    expect(await adjudicators('3')).toEqual([]);
    expect(await adjudicators('4')).toEqual([
      { did: entityDid(4), reward_percentage: '0.050000000000000000' },
    ]);
  });

  it('leave Int and Uint amounts as they travel', async () => {
    const token = node.seed.tokens[0]!;
    const list = await gateway.get(`/ixo/token/minter/${String(token.minter)}`);
    const printed = list.body.tokenDocs.find(
      (doc: { contract_address: string }) => doc.contract_address === token.contract_address,
    );
    expect([printed.cap, printed.supply]).toEqual([token.cap, token.supply]);
  });
});
