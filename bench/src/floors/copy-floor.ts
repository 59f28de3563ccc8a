import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { Client } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { requireEnv } from './floor-server';

/**
 * The floor of a bulk load: the file streamed as it is into the target table by one `COPY … FROM STDIN (FORMAT
 * csv, HEADER)`, which is the least work that stores the same rows (no validation beyond the table's own
 * constraints, no staging, no merge, no rollup refresh). Prints the rows PostgreSQL reports as copied.
 */
async function main(): Promise<void> {
  const client = new Client({ connectionString: requireEnv('DATABASE_URL') });
  await client.connect();
  try {
    const copy = client.query(
      copyFrom(
        `COPY ${requireEnv('COPY_TABLE')} (${requireEnv('COPY_COLUMNS')}) FROM STDIN WITH (FORMAT csv, HEADER true)`,
      ),
    );
    await pipeline(createReadStream(requireEnv('COPY_FILE')), copy);
    process.stdout.write(`${JSON.stringify({ rows: copy.rowCount })}\n`);
  } finally {
    await client.end();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
