import { LocalStack } from './local-stack';
import { settingsFromEnv } from './settings';

const stack = new LocalStack(settingsFromEnv(process.env));
process.once('SIGINT', () => void stack.stop(0));
process.once('SIGTERM', () => void stack.stop(0));
stack.run().catch((error: unknown) => {
  process.stderr.write(`local stack failed: ${error instanceof Error ? error.message : String(error)}\n`);
  void stack.stop(1);
});
