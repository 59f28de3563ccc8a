import Redis, { Cluster, RedisOptions } from 'ioredis';

/** One node (REDIS_URL, or the master Sentinel names) or a Redis Cluster: both run the same commands and scripts. */
export type RedisClient = Redis | Cluster;

/** Where Redis is, from the configuration: at most one of the three ways is set (checked at start-up). */
export type RedisTopology =
  | { kind: 'node'; url: string }
  | { kind: 'cluster'; nodes: string[] }
  | {
      kind: 'sentinel';
      sentinels: string[];
      masterName: string;
      password?: string;
      sentinelPassword?: string;
    };

export function redisTopologyOf(config: {
  REDIS_URL?: string;
  REDIS_CLUSTER_NODES: string[];
  REDIS_SENTINELS: string[];
  REDIS_SENTINEL_NAME?: string;
  REDIS_PASSWORD?: string;
  REDIS_SENTINEL_PASSWORD?: string;
}): RedisTopology | null {
  if (config.REDIS_URL) return { kind: 'node', url: config.REDIS_URL };
  if (config.REDIS_CLUSTER_NODES.length > 0) return { kind: 'cluster', nodes: config.REDIS_CLUSTER_NODES };
  if (config.REDIS_SENTINELS.length > 0)
    return {
      kind: 'sentinel',
      sentinels: config.REDIS_SENTINELS,
      masterName: config.REDIS_SENTINEL_NAME ?? '',
      password: config.REDIS_PASSWORD,
      sentinelPassword: config.REDIS_SENTINEL_PASSWORD,
    };
  return null;
}

/**
 * What every connection of this service does. A connection is only as good as its last answer:
 * - `commandTimeout`: a command gives up well inside the hop budget;
 * - `socketTimeout`: a connection that owes an answer and stays silent that long is destroyed and reopened. A peer
 *   that vanished without a reset (a NAT or load balancer that dropped the flow) otherwise keeps every command
 *   failing for as long as the kernel keeps the socket, which is minutes;
 * - `keepAlive`: the same for an idle connection, found by the kernel's probes;
 * - no offline queue and no resending after a reconnect: a command of a hop that already answered "unavailable"
 *   must never run later (a replayed lock-and-read took the session lock of a hop nobody waited for any more, and
 *   the subscriber's next hop found its session busy). While disconnected, a command fails at once;
 * - `protocol: 3` (RESP3, ioredis 6's default, set so that a change of default is ours to make): replies keep their
 *   RESP2 shapes (`replyMapping` stays 'legacy'), so the scripts' arrays read the same; a server without `HELLO`
 *   (Redis < 6) is spoken to in RESP2 (docs/architecture.md, "Dependencies");
 * - no `CLIENT SETINFO` at connect: the gateway's Redis user may run only the commands it needs (docs/deployment.md,
 *   "Redis users"), and a refused SETINFO would fill the server's ACL log, which is where an intrusion shows.
 */
function connectionOptions(commandTimeoutMs: number): RedisOptions {
  return {
    commandTimeout: commandTimeoutMs,
    socketTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    keepAlive: 5000,
    enableOfflineQueue: false,
    autoResendUnfulfilledCommands: false,
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    protocol: 3,
    disableClientInfo: true,
  };
}

const hostAndPort = (entry: string): { host: string; port: number } => {
  const url = new URL(/^rediss?:\/\//.test(entry) ? entry : `redis://${entry}`);
  return { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || 6379) };
};

function createCluster(nodes: string[], commandTimeoutMs: number): Cluster {
  // Credentials and TLS are those of the first URL: every node of a cluster shares them.
  const first = new URL(nodes[0]!);
  return new Cluster(nodes.map(hostAndPort), {
    redisOptions: {
      ...connectionOptions(commandTimeoutMs),
      username: first.username ? decodeURIComponent(first.username) : undefined,
      password: first.password ? decodeURIComponent(first.password) : undefined,
      tls: first.protocol === 'rediss:' ? {} : undefined,
    },
    enableOfflineQueue: false,
    // Every command goes to the master of its slot: a replica may lag, and a session must read its own writes.
    scaleReads: 'master',
    slotsRefreshTimeout: commandTimeoutMs,
    clusterRetryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    // During a failover the old master answers MOVED (followed at once) or the slot is briefly unserved: a command
    // that was not executed is retried shortly, within its own time-out.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    retryDelayOnTryAgain: 100,
    retryDelayOnMoved: 0,
  });
}

function createSentinelClient(
  topology: Extract<RedisTopology, { kind: 'sentinel' }>,
  commandTimeoutMs: number,
): Redis {
  return new Redis({
    ...connectionOptions(commandTimeoutMs),
    sentinels: topology.sentinels.map(hostAndPort),
    name: topology.masterName,
    password: topology.password,
    sentinelPassword: topology.sentinelPassword,
    role: 'master',
    // A demoted master answers writes with READONLY: reconnect (to whatever Sentinel names now), resending nothing.
    // (ioredis's failoverDetector would notice a little sooner, but keeps retrying the sentinels for ever once its
    // client has quit.)
    reconnectOnError: (error) => (error.message.startsWith('READONLY') ? 1 : false),
  });
}

/** The client of every Redis command this service sends. */
export function createRedisClient(target: string | RedisTopology, commandTimeoutMs: number): RedisClient {
  const topology: RedisTopology = typeof target === 'string' ? { kind: 'node', url: target } : target;
  let client: RedisClient;
  switch (topology.kind) {
    case 'node':
      client = new Redis(topology.url, connectionOptions(commandTimeoutMs));
      break;
    case 'cluster':
      client = createCluster(topology.nodes, commandTimeoutMs);
      break;
    case 'sentinel':
      client = createSentinelClient(topology, commandTimeoutMs);
      break;
  }
  // Connection failures surface where they matter (the failing command, the readiness probe); without a listener
  // ioredis would print every reconnect attempt to stderr.
  client.on('error', () => undefined);
  return client;
}
