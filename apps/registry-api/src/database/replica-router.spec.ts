import { DependencyUnavailableError } from '@dmrv/errors';
import { ReadTarget, ReplicaRouter } from './replica-router';

/** A database that answers with its own name, or fails the way it is told to, and records what it ran. */
class FakeTarget implements ReadTarget {
  failure: unknown = null;
  readonly ran: string[] = [];
  private readonly held: Array<() => void> = [];
  holding = false;

  constructor(readonly name: string) {}

  async query<R>(sql: string): Promise<R[]> {
    this.ran.push(sql);
    if (this.holding) await new Promise<void>((resolve) => this.held.push(resolve));
    if (this.failure) throw this.failure;
    return [{ source: this.name }] as R[];
  }

  release(): void {
    this.holding = false;
    for (const resolve of this.held.splice(0)) resolve();
  }
}

const unavailable = () =>
  new DependencyUnavailableError('database', new Error('connect ECONNREFUSED 127.0.0.1:1'));
const quietLogger = { log: jest.fn(), warn: jest.fn() };

function setUp(replicaCount: number) {
  const primary = new FakeTarget('primary');
  const replicas = Array.from({ length: replicaCount }, (_, index) => new FakeTarget(`replica-${index + 1}`));
  const router = new ReplicaRouter({
    primary,
    replicas,
    logger: quietLogger,
    recheckMinMs: 100,
    recheckMaxMs: 400,
  });
  const source = async () => (await router.read<{ source: string }>('SELECT x'))[0]!.source;
  return { primary, replicas, router, source };
}

describe('ReplicaRouter', () => {
  afterEach(() => jest.useRealTimers());

  it('reads from the primary when there are no replicas', async () => {
    const { router, source } = setUp(0);
    expect(router.hasReplicas).toBe(false);
    expect(await source()).toBe('primary');
  });

  it('takes idle replicas in turn', async () => {
    const { source } = setUp(3);
    const sources = [];
    for (let i = 0; i < 6; i += 1) sources.push(await source());
    expect(sources).toEqual(['replica-1', 'replica-2', 'replica-3', 'replica-1', 'replica-2', 'replica-3']);
  });

  it('sends a read to the least busy replica rather than the next in turn', async () => {
    const { replicas, router, source } = setUp(2);
    replicas[0]!.holding = true;
    const slow = source();
    expect([await source(), await source(), await source()]).toEqual(['replica-2', 'replica-2', 'replica-2']);
    expect(router.states().map((state) => state.inFlight)).toEqual([1, 0]);
    replicas[0]!.release();
    expect(await slow).toBe('replica-1');
  });

  it('repeats a read on the next replica when one cannot answer, and skips that one afterwards', async () => {
    jest.useFakeTimers();
    const { replicas, router, source } = setUp(2);
    replicas[0]!.failure = unavailable();
    expect(await source()).toBe('replica-2');
    expect(router.states()).toEqual([
      { name: 'replica-1', up: false, inFlight: 0 },
      { name: 'replica-2', up: true, inFlight: 0 },
    ]);
    expect([await source(), await source()]).toEqual(['replica-2', 'replica-2']);
    expect(replicas[0]!.ran).toEqual(['SELECT x']);
  });

  it('falls back to the primary when every replica is down, without failing the read', async () => {
    jest.useFakeTimers();
    const { primary, replicas, router, source } = setUp(2);
    for (const replica of replicas) replica.failure = unavailable();
    expect(await source()).toBe('primary');
    expect(router.states().every((state) => !state.up)).toBe(true);
    expect(await source()).toBe('primary');
    expect(primary.ran).toEqual(['SELECT x', 'SELECT x']);
  });

  it('re-checks a replica it took out with backoff and puts it back once it answers', async () => {
    jest.useFakeTimers();
    const { replicas, router, source } = setUp(1);
    const replica = replicas[0]!;
    replica.failure = unavailable();
    expect(await source()).toBe('primary');
    await jest.advanceTimersByTimeAsync(100);
    expect(replica.ran).toEqual(['SELECT x', 'SELECT 1']);
    await jest.advanceTimersByTimeAsync(199);
    expect(replica.ran).toHaveLength(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(replica.ran).toHaveLength(3);
    replica.failure = null;
    await jest.advanceTimersByTimeAsync(400);
    expect(router.states()[0]!.up).toBe(true);
    expect(await source()).toBe('replica-1');
  });

  it('repeats on the primary a read the replica cancelled for a recovery conflict, keeping the replica', async () => {
    const { replicas, router, source } = setUp(1);
    replicas[0]!.failure = Object.assign(new Error('canceling statement due to conflict with recovery'), {
      code: '40001',
    });
    expect(await source()).toBe('primary');
    expect(router.states()[0]!.up).toBe(true);
  });

  it('lets any other error through: a wrong query is a bug, not an outage', async () => {
    const { primary, replicas, router } = setUp(1);
    replicas[0]!.failure = Object.assign(new Error('column "x" does not exist'), { code: '42703' });
    await expect(router.read('SELECT x')).rejects.toThrow('column "x" does not exist');
    expect(primary.ran).toEqual([]);
    expect(router.states()[0]!.up).toBe(true);
  });

  it('records what a readiness check finds: down is skipped at once, answering is put back at once', async () => {
    jest.useFakeTimers();
    const { replicas, router, source } = setUp(1);
    replicas[0]!.failure = unavailable();
    await expect(router.check('replica-1')).rejects.toThrow('database is unavailable');
    expect(await source()).toBe('primary');
    replicas[0]!.failure = null;
    await router.check('replica-1');
    expect(await source()).toBe('replica-1');
  });

  it('stops re-checking once stopped', async () => {
    jest.useFakeTimers();
    const { replicas, router, source } = setUp(1);
    replicas[0]!.failure = unavailable();
    await source();
    router.stop();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(replicas[0]!.ran).toEqual(['SELECT x']);
  });
});
