import { Client, Pool } from 'pg';
import type { EmbeddedPostgres } from './embedded-postgres';
import { spawnEmbeddedPostgres } from './spawn';

describe('embedded PostgreSQL (PGlite over the wire protocol)', () => {
  let embedded: EmbeddedPostgres;

  beforeAll(async () => {
    embedded = await spawnEmbeddedPostgres();
  }, 60_000);

  afterAll(async () => {
    await embedded.stop();
  });

  it('answers the pg driver on the URL it reports', async () => {
    const client = new Client({ connectionString: embedded.url });
    await client.connect();
    const { rows } = await client.query<{ answer: number }>('SELECT 41 + 1 AS answer');
    await client.end();
    expect(rows).toEqual([{ answer: 42 }]);
  });

  it('serves several pooled connections with transactions, as TypeORM uses it', async () => {
    const pool = new Pool({ connectionString: embedded.url, max: 4 });
    await pool.query('CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)');
    await pool.query('INSERT INTO counters VALUES (1, 0)');
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          await client.query('UPDATE counters SET value = value + 1 WHERE id = 1');
          await client.query('COMMIT');
        } finally {
          client.release();
        }
      }),
    );
    const { rows } = await pool.query<{ value: number }>('SELECT value FROM counters WHERE id = 1');
    await pool.end();
    expect(rows[0]?.value).toBe(8);
  });

  it('rolls back a failed transaction', async () => {
    const client = new Client({ connectionString: embedded.url });
    await client.connect();
    await client.query('CREATE TABLE notes (body text NOT NULL)');
    await client.query('BEGIN');
    await client.query("INSERT INTO notes VALUES ('kept only if committed')");
    await expect(client.query('INSERT INTO notes VALUES (NULL)')).rejects.toThrow(/null value/);
    await client.query('ROLLBACK');
    const { rows } = await client.query<{ count: string }>('SELECT count(*) FROM notes');
    await client.end();
    expect(rows[0]?.count).toBe('0');
  });
});
