import { randomBytes } from 'node:crypto';
import { assertPostgresReachable } from './database';
import { assertRedisReachable } from './redis';

export default async function globalSetup(): Promise<void> {
  process.env.TZ = 'UTC';
  // One id per `jest` invocation; workers inherit it through the environment.
  process.env.DMRV_TEST_RUN_ID ??= `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  await Promise.all([assertPostgresReachable(), assertRedisReachable()]);
}
