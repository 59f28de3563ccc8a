import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgresOptions {
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  /** Directory to persist data in; in memory when omitted. */
  dataDir?: string;
  /** Client connections multiplexed onto the single PGlite session. */
  maxConnections?: number;
}

export interface EmbeddedPostgres {
  /** postgres:// URL that `pg` and TypeORM connect to. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * PostgreSQL compiled to WebAssembly, reachable over TCP like a real server, so the services run their normal
 * `pg`/TypeORM code and migrations on it. PGlite is one session underneath: connections are multiplexed and
 * statements serialised, which is fine for a local stack and never for production.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions = {},
): Promise<EmbeddedPostgres> {
  const host = options.host ?? '127.0.0.1';
  const db = await PGlite.create(options.dataDir ? { dataDir: options.dataDir } : {});
  const server = new PGLiteSocketServer({
    db,
    host,
    port: options.port ?? 0,
    maxConnections: options.maxConnections ?? 16,
  });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  if (!Number.isInteger(port) || port <= 0)
    throw new Error(`embedded PostgreSQL reported no port (${server.getServerConn()})`);
  return {
    url: `postgres://postgres@${host}:${port}/postgres`,
    port,
    stop: async () => {
      await server.stop();
      await db.close();
    },
  };
}
