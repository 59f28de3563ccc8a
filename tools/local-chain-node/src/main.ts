import { startLocalChainNode } from './chain-node';
import { ChainNodeConfigError, optionsFromEnv } from './options';

// The CLI: one JSON line on stdout when ready (the local stack and the benchmarks wait for it), exit 0 on
// SIGTERM/SIGINT after a graceful stop.
async function main(): Promise<void> {
  const node = await startLocalChainNode(optionsFromEnv(process.env));
  process.stdout.write(`${JSON.stringify({ listening: node.address })}\n`);
  const onSignal = (): void => {
    node.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}

main().catch((error: unknown) => {
  const message = error instanceof ChainNodeConfigError ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
  process.stderr.write(`local-chain-node: ${message}\n`);
  process.exit(1);
});
