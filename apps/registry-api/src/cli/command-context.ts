import { Client } from 'pg';

/** What `cli.ts` hands a data-file command: the database to use, and how to say the command line is wrong. */
export interface CommandContext {
  databaseUrl(): string;
  usageError(message: string): Error;
}

/** Runs `work` on a connection of its own (the loader stages in temporary tables and COPYs), closed after. */
export async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, application_name: 'registry-api loader' });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
