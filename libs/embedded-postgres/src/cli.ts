import { startEmbeddedPostgres } from './embedded-postgres';

/**
 * `node dist/cli.js [--port N] [--data-dir DIR]`: starts the embedded database, prints one JSON line
 * `{"url": ...}` on stdout when it accepts connections, and stops cleanly on SIGTERM/SIGINT.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const option = (name: string): string | undefined => {
    const index = args.indexOf(name);
    return index === -1 ? undefined : args[index + 1];
  };
  const embedded = await startEmbeddedPostgres({
    port: Number(option('--port') ?? 0),
    dataDir: option('--data-dir'),
  });
  process.stdout.write(`${JSON.stringify({ url: embedded.url, port: embedded.port })}\n`);
  const stop = (): void => {
    embedded.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(
    `embedded PostgreSQL failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
  );
  process.exit(1);
});
