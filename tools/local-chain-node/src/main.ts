import { LocalChainNode, startLocalChainNode } from './chain-node';
import { ChainNodeConfigError, optionsFromEnv } from './options';

// The CLI: one JSON line on stdout when ready (the local stack and the benchmarks wait for it), exit 0 on
// SIGTERM/SIGINT after a graceful stop.
async function main(): Promise<void> {
  const options = optionsFromEnv(process.env);
  const state: { node?: LocalChainNode; stopping: boolean } = { stopping: false };
  const stop = (): void => {
    if (state.stopping) return;
    state.stopping = true;
    (state.node ? state.node.stop() : Promise.resolve()).then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  // Installed before the ready line: a supervisor may signal the moment it reads that line, and a signal that
  // arrives before the handler exists kills the process (exit by SIGTERM instead of 0).
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const node = await startLocalChainNode(options);
  state.node = node;
  if (state.stopping) {
    await node.stop();
    process.exit(0);
  }
  process.stdout.write(`${JSON.stringify({ listening: node.address })}\n`);
}

main().catch((error: unknown) => {
  const message =
    error instanceof ChainNodeConfigError
      ? error.message
      : error instanceof Error
        ? (error.stack ?? error.message)
        : String(error);
  process.stderr.write(`local-chain-node: ${message}\n`);
  process.exit(1);
});
