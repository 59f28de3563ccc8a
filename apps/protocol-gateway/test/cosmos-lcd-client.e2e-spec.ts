import type { AddressInfo } from 'node:net';
import { bytesFromBase64, parseDuration } from '@dmrv/chain-client';
import { cosmos, google } from 'interchain';
import { agentAddress } from '../../../tools/local-chain-node/src';
import { Gateway, LocalChainNode, startGateway, startNode } from './harness';

// A published Telescope LCD client (interchain's LCDQueryClient, over axios) calls the gateway for the Cosmos routes
// the local chain node serves (bank, and mint after the node's upgrade), learnt through reflection: every answer equal
// to the gateway's own JSON, paging exact, the Cosmos error body. Also the two traps every Cosmos developer meets on a
// REST endpoint, and their fixes, as the protocol gateway's README tells them.
type LcdClient = Awaited<ReturnType<typeof cosmos.ClientFactory.createLCDClient>>;
type AllBalances = Awaited<ReturnType<LcdClient['cosmos']['bank']['v1beta1']['allBalances']>>;

describe('a Telescope LCD client (interchain) against the gateway', () => {
  let node: LocalChainNode;
  let gateway: Gateway;
  let baseUrl: string;
  let lcd: LcdClient;
  const address = agentAddress(3);

  /** The gateway's own answer, as fetch reads it. */
  const raw = async (path: string): Promise<unknown> => (await fetch(`${baseUrl}${path}`)).json();

  beforeAll(async () => {
    node = await startNode({ extraModules: ['bank', 'mint'] });
    gateway = await startGateway({ GRPC_UPSTREAM: node.address });
    await gateway.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(gateway.app.getHttpServer().address() as AddressInfo).port}`;
    lcd = await cosmos.ClientFactory.createLCDClient({ restEndpoint: baseUrl });
  });

  afterAll(async () => {
    await gateway?.close();
    await node?.stop();
  });

  it('bank Balance and mint Params: the answers are the gateway’s JSON', async () => {
    const balance = await lcd.cosmos.bank.v1beta1.balance({ address, denom: 'uixo' });
    expect(balance).toEqual(await raw(`/cosmos/bank/v1beta1/balances/${address}/by_denom?denom=uixo`));
    expect(balance).toEqual({ balance: { denom: 'uixo', amount: '4000000' } });

    const mint = await lcd.cosmos.mint.v1beta1.params();
    expect(mint).toEqual(await raw('/cosmos/mint/v1beta1/params'));
    expect(mint.params.blocks_per_year).toBe('6311520');
  });

  it('pages AllBalances exactly, next_key decoded from base64 before it goes back as the key', async () => {
    const pages: AllBalances[] = [];
    let key: Uint8Array | undefined;
    do {
      const page = await lcd.cosmos.bank.v1beta1.allBalances({
        address,
        pagination: {
          key: key ?? new Uint8Array(),
          offset: 0n,
          limit: 1n,
          countTotal: false,
          reverse: false,
        },
        resolveDenom: false,
      });
      pages.push(page);
      // The fix: Telescope types next_key as bytes, but the JSON holds base64 text (null on the last page).
      const nextKey = page.pagination!.next_key as unknown as string | null;
      key = nextKey === null ? undefined : bytesFromBase64(nextKey);
    } while (key !== undefined);

    expect(pages).toEqual([
      await raw(`/cosmos/bank/v1beta1/balances/${address}?pagination.limit=1`),
      await raw(
        `/cosmos/bank/v1beta1/balances/${address}?pagination.limit=1&pagination.key=${encodeURIComponent(btoa('uixo'))}`,
      ),
    ]);
    expect(pages.flatMap((page) => page.balances)).toEqual(
      (
        (await raw(`/cosmos/bank/v1beta1/balances/${address}`)) as {
          balances: unknown[];
        }
      ).balances,
    );
    expect(pages.map((page) => page.pagination!.next_key)).toEqual([btoa('uixo'), null]);
  });

  it('trap: next_key passed back as Telescope types it (undecoded) asks for page 1 again, forever', async () => {
    const first = await lcd.cosmos.bank.v1beta1.allBalances({
      address,
      pagination: { key: new Uint8Array(), offset: 0n, limit: 1n, countTotal: false, reverse: false },
      resolveDenom: false,
    });
    let page = first;
    for (let round = 0; round < 3; round += 1) {
      page = await lcd.cosmos.bank.v1beta1.allBalances({
        address,
        // What the types invite: the client base64-encodes the base64 text once more, which names no stored key.
        pagination: {
          key: page.pagination!.next_key,
          offset: 0n,
          limit: 1n,
          countTotal: false,
          reverse: false,
        },
        resolveDenom: false,
      });
      expect(page).toEqual(first);
    }
    expect(first.pagination!.next_key).toBe(btoa('uixo'));
  });

  it('a Cosmos error body reaches the LCD client as the node’s REST would send it', async () => {
    const failure = (await lcd.cosmos.bank.v1beta1
      .allBalances({
        address,
        pagination: {
          key: bytesFromBase64(btoa('uixo')),
          offset: 1n,
          limit: 1n,
          countTotal: false,
          reverse: false,
        },
        resolveDenom: false,
      })
      .catch((error: unknown) => error)) as { response?: { status: number; data: unknown } };
    expect({ status: failure.response?.status, data: failure.response?.data }).toEqual({
      status: 400,
      data: {
        code: 3,
        message: 'paginate: invalid request, either offset or key is expected, got both',
        details: [],
      },
    });
  });

  it('trap: Duration.fromAmino("604800s") throws on the JSON form; parseDuration gives the Duration', async () => {
    const { collection } = (await raw('/ixo/claims/collection/2')) as {
      collection: { min_deposit_period: string };
    };
    const text = collection.min_deposit_period;
    expect(text).toBe('604800s');
    // Telescope's amino form of a Duration is a count of nanoseconds; the JSON one is seconds with an "s".
    expect(() => google.protobuf.Duration.fromAmino(text as never)).toThrow(SyntaxError);

    const duration = google.protobuf.Duration.fromPartial(parseDuration(text));
    expect(duration).toEqual({ seconds: 604_800n, nanos: 0 });
    expect(google.protobuf.Duration.decode(google.protobuf.Duration.encode(duration).finish())).toEqual(
      duration,
    );
    expect(google.protobuf.Duration.fromPartial(parseDuration('1.5s'))).toEqual({
      seconds: 1n,
      nanos: 500_000_000,
    });
  });
});
