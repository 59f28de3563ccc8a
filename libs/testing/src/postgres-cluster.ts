import { execFile } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withPgClient } from './database';

/** A PostgreSQL server this test started on a loopback port: trust authentication, user `postgres`. */
export interface LocalPostgres {
  port: number;
  url(database?: string): string;
  /** `immediate` is a crash (connections reset, nothing flushed); `fast` a clean shutdown. */
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** Starts it again after `stop`, on the same port (a standby resumes streaming from where it was). */
  start(): Promise<void>;
}

/** The standby of a ReplicatedPostgres, which can be made a primary. */
export interface StandbyPostgres extends LocalPostgres {
  /**
   * `pg_ctl promote`: resolves once the standby accepts writes, having applied all the WAL it received. It streams from
   * nothing from then on; the old primary must not be started again in front of the same clients.
   */
  promote(): Promise<void>;
}

export interface ReplicatedPostgresOptions {
  /**
   * The primary's `synchronous_commit` for every session. `local` (the default): a commit does not wait for the
   * standby, so the services under test never block on it, and a crash of the primary can lose the last commits.
   * `on`: every commit waits until the standby has flushed it, so a promoted standby holds every acknowledged commit.
   */
  synchronousCommit?: 'local' | 'on';
}

export interface ReplicatedPostgres {
  primary: LocalPostgres;
  /** A hot standby streaming from the primary (`pg_basebackup -R`). */
  replica: StandbyPostgres;
  /**
   * Resolves once the replica has applied everything committed on the primary so far: one commit with
   * `synchronous_commit = remote_apply`, which PostgreSQL acknowledges only after the standby applied it (and all WAL
   * before it). Never call it while replay is paused or the replica is stopped: it would wait for them.
   */
  replicaCaughtUp(): Promise<void>;
  /** Stops / resumes the replica applying WAL: it keeps answering, with the data as of the pause. */
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  /** Stops both servers (whatever state they are in) and removes their files. */
  close(): Promise<void>;
}

/** The newest server binaries installed (Debian/Ubuntu layout: /usr/lib/postgresql/<major>/bin). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((name) => /^\d+$/.test(name) && existsSync(join(root, name, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}/*/bin`);
  return join(root, majors[0]!, 'bin');
}

interface OsUser {
  uid: number;
  gid: number;
}

/**
 * PostgreSQL refuses to run as root. As root (CI containers), the servers run as the `postgres` account the server
 * package created; as anyone else, as the current user.
 */
function serverUser(): OsUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) throw new Error('running as root and there is no postgres account to run PostgreSQL as');
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

function run(binDir: string, user: OsUser | undefined, command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      join(binDir, command),
      args,
      { ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' }, timeout: 60_000 },
      (error, _stdout, stderr) => {
        if (error) reject(new Error(`${command} ${args.join(' ')} failed: ${stderr || error.message}`));
        else resolve();
      },
    );
  });
}

/** Servers started from the installed binaries in one temporary directory, stopped and removed by `close()`. */
function serverSet(prefix: string) {
  const binDir = postgresBinDir();
  const user = serverUser();
  const root = mkdtempSync(join(tmpdir(), prefix));
  const started: Array<{ dataDir: string; running: boolean }> = [];
  const own = (path: string): void => {
    if (user) chownSync(path, user.uid, user.gid);
  };
  own(root);

  const initdb = (dataDir: string): Promise<void> =>
    run(binDir, user, 'initdb', [
      '-D',
      dataDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-locale',
      '--no-sync',
    ]);

  // PostgreSQL cannot listen on port 0 and say where it went, so a port is picked at random below the kernel's
  // ephemeral range (where port-0 listeners and outgoing connections land) and another is tried if it is taken.
  const server = async (name: string, dataDir: string, settings: string[]): Promise<LocalPostgres> => {
    const socketDir = join(root, `${name}-socket`);
    mkdirSync(socketDir);
    own(socketDir);
    const entry = { dataDir, running: false };
    started.push(entry);
    const log = join(root, `${name}.log`);
    const startOn = async (port: number): Promise<void> => {
      const options = [`-p ${port}`, `-k ${socketDir}`, '-c listen_addresses=127.0.0.1', ...settings].join(
        ' ',
      );
      await run(binDir, user, 'pg_ctl', ['-D', dataDir, '-l', log, '-o', options, '-w', '-t', '60', 'start']);
      entry.running = true;
    };
    let port = 0;
    for (let attempt = 1; !entry.running; attempt += 1) {
      port = 20_000 + Math.floor(Math.random() * 10_000);
      try {
        await startOn(port);
      } catch (error) {
        const taken = existsSync(log) && readFileSync(log, 'utf8').includes('Address already in use');
        if (!taken || attempt === 5) throw error;
        rmSync(log, { force: true });
      }
    }
    return {
      port,
      url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
      stop: async (mode = 'fast') => {
        if (!entry.running) return;
        entry.running = false;
        await run(binDir, user, 'pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop']);
      },
      start: async () => {
        if (!entry.running) await startOn(port);
      },
    };
  };

  const close = async (): Promise<void> => {
    for (const entry of started.reverse()) {
      if (!entry.running) continue;
      entry.running = false;
      await run(binDir, user, 'pg_ctl', ['-D', entry.dataDir, '-m', 'immediate', '-w', 'stop']).catch(
        () => undefined,
      );
    }
    rmSync(root, { recursive: true, force: true });
  };

  return { binDir, user, root, initdb, server, close };
}

const COMMON_SETTINGS = [
  '-c fsync=off',
  '-c full_page_writes=off',
  '-c max_connections=60',
  '-c shared_buffers=16MB',
];

/**
 * A PostgreSQL server of the test's own (initdb, trust authentication, user `postgres`) on a free loopback port, for
 * what must not touch the machine's shared server: cluster-wide roles, databases with fixed names. `close()` stops it
 * and removes its files.
 */
export async function startLocalPostgres(): Promise<LocalPostgres & { close(): Promise<void> }> {
  const set = serverSet('dmrv-pg-');
  try {
    const dataDir = join(set.root, 'data');
    await set.initdb(dataDir);
    const server = await set.server('server', dataDir, COMMON_SETTINGS);
    return { ...server, close: set.close };
  } catch (error) {
    await set.close();
    throw error;
  }
}

/**
 * Starts a primary (initdb) and a streaming hot standby of it (pg_basebackup -R) on two free loopback ports, from the
 * installed server binaries, in a temporary directory that `close()` removes. Commits on the primary do not wait
 * for the standby unless a session asks (`replicaCaughtUp`) or `synchronousCommit: 'on'` is chosen.
 */
export async function startReplicatedPostgres(
  options: ReplicatedPostgresOptions = {},
): Promise<ReplicatedPostgres> {
  const { binDir, user, root, initdb, server, close } = serverSet('dmrv-pg-replica-');

  try {
    const primaryDir = join(root, 'primary');
    const replicaDir = join(root, 'replica');
    await initdb(primaryDir);
    const common = COMMON_SETTINGS;
    const primary = await server('primary', primaryDir, [
      ...common,
      '-c wal_level=replica',
      '-c max_wal_senders=4',
      // The standby is synchronous, but with `local` only a session that sets remote_apply waits for it.
      "-c synchronous_standby_names='*'",
      `-c synchronous_commit=${options.synchronousCommit ?? 'local'}`,
    ]);
    await run(binDir, user, 'pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      replicaDir,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    const standby = await server('replica', replicaDir, [...common, '-c hot_standby=on']);
    const replica: StandbyPostgres = {
      ...standby,
      promote: () => run(binDir, user, 'pg_ctl', ['-D', replicaDir, '-w', '-t', '60', 'promote']),
    };
    const onReplica = (sql: string) =>
      withPgClient(replica.url(), (client) => client.query(sql)).then(() => undefined);
    const replicated: ReplicatedPostgres = {
      primary,
      replica,
      replicaCaughtUp: () =>
        withPgClient(primary.url(), async (client) => {
          await client.query('SET synchronous_commit = remote_apply');
          await client.query('SELECT txid_current()');
        }),
      pauseReplay: () => onReplica('SELECT pg_wal_replay_pause()'),
      resumeReplay: () => onReplica('SELECT pg_wal_replay_resume()'),
      close,
    };
    await replicated.replicaCaughtUp();
    return replicated;
  } catch (error) {
    await close();
    throw error;
  }
}
