import { ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';

const run = promisify(execFile);
const HOST = '127.0.0.1';
/** Cluster bus ports are the client port + 10000: client ports stay below 55536. */
const PORT_RANGE = { first: 20_000, count: 20_000 };
const START_ATTEMPTS = 20;
const POLL_MS = 100;

/** A `redis-server` (or sentinel) process of a test, on a local port. */
export interface RedisProcess {
  port: number;
  /** SIGKILL, as a crash: no shutdown save, no goodbye to replicas. */
  kill(): Promise<void>;
  stop(): Promise<void>;
}

async function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await once(child, 'exit');
}

/**
 * Starts `redis-server` on a port taken by use, not by a check beforehand: a random port is tried, and if the server
 * cannot bind it (or its cluster bus port), another. Resolves once the server says it accepts connections.
 */
async function startServer(
  dir: string,
  args: (port: number) => string[],
  readyLine: RegExp,
): Promise<RedisProcess> {
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt += 1) {
    const port = PORT_RANGE.first + Math.floor(Math.random() * PORT_RANGE.count);
    const child = spawn('redis-server', args(port), { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (readyLine.test(output)) resolve(true);
      });
      child.once('exit', () => resolve(false));
      child.once('error', () => resolve(false));
    });
    if (!ready) {
      if (/already in use|Could not create server TCP listening socket/i.test(output)) continue;
      throw new Error(`redis-server did not start:\n${output.slice(-2000)}`);
    }
    // Drained, or a full pipe would block the server.
    child.stdout!.resume();
    child.stderr!.resume();
    return {
      port,
      kill: async () => {
        child.kill('SIGKILL');
        await exited(child);
      },
      stop: async () => {
        child.kill('SIGTERM');
        await exited(child);
      },
    };
  }
  throw new Error(`redis-server found no free port in ${START_ATTEMPTS} attempts`);
}

/** Polls `check` until it returns true, at most `timeoutMs` (cluster and sentinel state have no event to await). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

async function command<T>(port: number, work: (client: Redis) => Promise<T>): Promise<T> {
  const client = new Redis({
    host: HOST,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return await work(client);
  } finally {
    client.disconnect();
  }
}

/** `INFO replication` of a server as a record. */
export async function replicationInfo(port: number): Promise<Record<string, string>> {
  const text = await command(port, (client) => client.info('replication'));
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((line) => line.includes(':'))
      .map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1)]),
  );
}

export interface TestRedisCluster {
  /** `host:port` of every node, masters first. */
  nodes: string[];
  masters: RedisProcess[];
  replicas: RedisProcess[];
  /** The port of the master that serves `key` now. */
  masterOf(key: string): Promise<number>;
  /**
   * A coordinated failover of the master serving `key`: its replica takes over once it has caught up (CLUSTER
   * FAILOVER), so nothing acknowledged is lost. Resolves when the replica is master and every node agrees.
   */
  failover(key: string): Promise<{ from: number; to: number }>;
  /**
   * Kills the master serving `key` with SIGKILL, as a crash, and resolves once the cluster itself has promoted its
   * replica (no command from us) and every live node agrees. Writes the replica had not received yet are lost.
   */
  killMaster(key: string): Promise<{ from: number; to: number }>;
  /**
   * Moves the slot of `key` to the master on `toPort` while clients keep using it, as `redis-cli --cluster reshard`
   * does: IMPORTING/MIGRATING, MIGRATE of its keys in batches (clients meanwhile get ASK and TRYAGAIN), then SETSLOT
   * NODE on every live master. Resolves once every live node names the new owner.
   */
  migrateSlotOf(key: string, toPort: number): Promise<{ slot: number; from: number; keys: number }>;
  close(): Promise<void>;
}

/** A real Redis Cluster of 3 masters with a replica each, on local ports, in a temporary directory. */
export async function startRedisCluster(): Promise<TestRedisCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'dmrv-redis-cluster-'));
  const started: RedisProcess[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(started.map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (let index = 0; index < 6; index += 1) {
      started.push(
        await startServer(
          dir,
          (port) => [
            '--port',
            String(port),
            '--bind',
            HOST,
            '--save',
            '',
            '--appendonly',
            'no',
            '--dir',
            dir,
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            `nodes-${port}.conf`,
            '--cluster-node-timeout',
            '2000',
          ],
          /Ready to accept connections/,
        ),
      );
    }
    const nodes = started.map((server) => `${HOST}:${server.port}`);
    // The first three become masters, each of the others a replica of one of them.
    await run('redis-cli', ['--cluster', 'create', ...nodes, '--cluster-replicas', '1', '--cluster-yes'], {
      timeout: 60_000,
    });
    const clusterOk = async (port: number): Promise<boolean> =>
      (await command(port, (client) => client.cluster('INFO'))).includes('cluster_state:ok');
    const replicasSynced = async (port: number): Promise<boolean> => {
      const info = await replicationInfo(port);
      return info.role === 'master' || info.master_link_status === 'up';
    };
    await until('cluster ready', async () =>
      (await Promise.all(started.map((s) => clusterOk(s.port)))).every(Boolean),
    );
    await until('replicas synced', async () =>
      (await Promise.all(started.map((s) => replicasSynced(s.port)))).every(Boolean),
    );
    const roles = await Promise.all(
      started.map(async (server) => ({ server, role: (await replicationInfo(server.port)).role })),
    );
    const masters = roles.filter(({ role }) => role === 'master').map(({ server }) => server);
    const replicas = roles.filter(({ role }) => role !== 'master').map(({ server }) => server);
    const dead = new Set<number>();
    const live = (): RedisProcess[] => started.filter((server) => !dead.has(server.port));
    const slotOf = (key: string): Promise<number> =>
      command(live()[0]!.port, (client) => client.cluster('KEYSLOT', key));
    const ownerOf = async (slot: number, port = live()[0]!.port): Promise<number> => {
      const slots = await command(port, (client) => client.cluster('SLOTS'));
      const owner = slots.find(([from, to]) => slot >= from && slot <= to);
      if (!owner) throw new Error(`no node serves slot ${slot}`);
      return owner[2]![1];
    };
    const masterOf = async (key: string): Promise<number> => ownerOf(await slotOf(key));
    const replicaOf = async (master: number): Promise<number> => {
      for (const replica of live()) {
        const info = await replicationInfo(replica.port);
        if (info.role === 'slave' && Number(info.master_port) === master) return replica.port;
      }
      throw new Error(`the master on ${master} has no replica`);
    };
    const everyLiveNodeAgrees = (slot: number, owner: number) => async (): Promise<boolean> =>
      (await Promise.all(live().map((server) => ownerOf(slot, server.port).catch(() => -1)))).every(
        (port) => port === owner,
      );
    const nodeId = (port: number): Promise<string> =>
      command(port, (client) => client.call('CLUSTER', 'MYID') as Promise<string>);
    return {
      nodes: [...masters, ...replicas].map((server) => `${HOST}:${server.port}`),
      masters,
      replicas,
      masterOf,
      failover: async (key) => {
        const from = await masterOf(key);
        let to: number | undefined;
        for (const replica of started) {
          const info = await replicationInfo(replica.port);
          if (info.role === 'slave' && Number(info.master_port) === from) to = replica.port;
        }
        if (to === undefined) throw new Error(`the master on ${from} has no replica`);
        const promoted = to;
        await command(promoted, (client) => client.cluster('FAILOVER'));
        await until('replica promoted', async () => (await replicationInfo(promoted)).role === 'master');
        await until('every node sees the new master', async () =>
          (await Promise.all(started.map((s) => command(s.port, (c) => c.cluster('SLOTS'))))).every((slots) =>
            slots.every(([, , ...owners]) => owners[0]?.[1] !== from),
          ),
        );
        return { from, to: promoted };
      },
      killMaster: async (key) => {
        const slot = await slotOf(key);
        const from = await ownerOf(slot);
        const to = await replicaOf(from);
        const victim = started.find((server) => server.port === from)!;
        dead.add(from);
        await victim.kill();
        await until(
          'the cluster promotes the replica',
          async () => (await replicationInfo(to)).role === 'master',
        );
        await until('every live node sees the new master', everyLiveNodeAgrees(slot, to));
        return { from, to };
      },
      migrateSlotOf: async (key, toPort) => {
        const slot = await slotOf(key);
        const from = await ownerOf(slot);
        if (from === toPort) throw new Error(`slot ${slot} is on ${toPort} already`);
        const [fromId, toId] = await Promise.all([nodeId(from), nodeId(toPort)]);
        await command(toPort, (client) => client.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', fromId));
        await command(from, (client) => client.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', toId));
        let keys = 0;
        for (;;) {
          const batch = (await command(from, (client) =>
            client.call('CLUSTER', 'GETKEYSINSLOT', slot, 10),
          )) as string[];
          if (batch.length === 0) break;
          await command(from, (client) =>
            client.call('MIGRATE', HOST, toPort, '', 0, 5000, 'KEYS', ...batch),
          );
          keys += batch.length;
        }
        const masters = [
          toPort,
          from,
          ...live()
            .map((server) => server.port)
            .filter((port) => port !== toPort && port !== from),
        ];
        for (const port of masters) {
          if ((await replicationInfo(port)).role === 'master')
            await command(port, (client) => client.call('CLUSTER', 'SETSLOT', slot, 'NODE', toId));
        }
        await until('every live node names the new owner', everyLiveNodeAgrees(slot, toPort));
        return { slot, from, keys };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export interface TestRedisSentinel {
  /** `host:port` of the sentinel(s). */
  sentinels: string[];
  masterName: string;
  master: RedisProcess;
  replica: RedisProcess;
  /** The port Sentinel names as the master now. */
  currentMaster(): Promise<number>;
  /**
   * Has Sentinel fail the master over to the replica once it has caught up (SENTINEL FAILOVER); resolves when the
   * sentinel names the replica and the replica is master.
   */
  failover(): Promise<{ from: number; to: number }>;
  /**
   * Kills the master with SIGKILL, as a crash, and resolves once Sentinel has elected the replica (no command from
   * us) and the replica serves writes.
   */
  killMaster(): Promise<{ from: number; to: number }>;
  close(): Promise<void>;
}

/** One master, one replica and one sentinel watching them, on local ports, in a temporary directory. */
export async function startRedisSentinel(masterName = 'dmrv-test'): Promise<TestRedisSentinel> {
  const dir = await mkdtemp(join(tmpdir(), 'dmrv-redis-sentinel-'));
  const started: RedisProcess[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(started.reverse().map((server) => server.stop()));
    await rm(dir, { recursive: true, force: true });
  };
  const plain =
    (extra: string[] = []) =>
    (port: number) => [
      '--port',
      String(port),
      '--bind',
      HOST,
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      dir,
      ...extra,
    ];
  try {
    const master = await startServer(dir, plain(), /Ready to accept connections/);
    started.push(master);
    const replica = await startServer(
      dir,
      plain(['--replicaof', HOST, String(master.port)]),
      /Ready to accept connections/,
    );
    started.push(replica);
    await until(
      'replica synced',
      async () => (await replicationInfo(replica.port)).master_link_status === 'up',
    );
    const sentinel = await startServer(
      dir,
      (port) => {
        const file = join(dir, `sentinel-${port}.conf`);
        // Written synchronously before the spawn that reads it: the port is only known here.
        writeFileSync(
          file,
          [
            `port ${port}`,
            `bind ${HOST}`,
            `dir ${dir}`,
            `sentinel monitor ${masterName} ${HOST} ${master.port} 1`,
            `sentinel down-after-milliseconds ${masterName} 2000`,
            `sentinel failover-timeout ${masterName} 10000`,
            '',
          ].join('\n'),
        );
        return [file, '--sentinel'];
      },
      /\+monitor master/,
    );
    started.push(sentinel);
    const ask = <T>(work: (client: Redis) => Promise<T>): Promise<T> => command(sentinel.port, work);
    const currentMaster = async (): Promise<number> =>
      Number(
        (
          (await ask((client) => client.call('SENTINEL', 'get-master-addr-by-name', masterName))) as [
            string,
            string,
          ]
        )[1],
      );
    await until('sentinel knows the replica', async () => {
      const replicas = (await ask((client) => client.call('SENTINEL', 'replicas', masterName))) as string[][];
      return replicas.some(
        (fields) => fields.includes(String(replica.port)) && !fields.join(' ').includes('s_down'),
      );
    });
    return {
      sentinels: [`${HOST}:${sentinel.port}`],
      masterName,
      master,
      replica,
      currentMaster,
      failover: async () => {
        const from = await currentMaster();
        const to = from === master.port ? replica.port : master.port;
        await until('replica caught up', async () => {
          const [primary, secondary] = await Promise.all([replicationInfo(from), replicationInfo(to)]);
          return (
            secondary.master_link_status === 'up' &&
            primary.master_repl_offset === secondary.slave_repl_offset
          );
        });
        await ask((client) => client.call('SENTINEL', 'FAILOVER', masterName));
        await until('sentinel names the new master', async () => (await currentMaster()) === to);
        await until(
          'the new master serves writes',
          async () => (await replicationInfo(to)).role === 'master',
        );
        return { from, to };
      },
      killMaster: async () => {
        const from = await currentMaster();
        const [victim, to] = from === master.port ? [master, replica.port] : [replica, master.port];
        await victim.kill();
        await until('sentinel names the new master', async () => (await currentMaster()) === to);
        await until(
          'the new master serves writes',
          async () => (await replicationInfo(to)).role === 'master',
        );
        return { from, to };
      },
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
