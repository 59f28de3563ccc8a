#!/usr/bin/env node
// Times one PIN hash (scrypt, r=8, p=1, 32 bytes, as PinVault) on one core at each cost, for the trade-off table in
// apps/ussd-gateway/README.md ("PIN hashing: admission and cost"). Usage: node scripts/pin-hash-cost.mjs
import { randomBytes, scryptSync } from 'node:crypto';

const PIN_SPACE = 100_000;
console.log('log2N\tms/hash\thashes/s/core\t5-digit PIN space, one core (with the key)');
for (const log2N of [12, 13, 14, 15, 16, 17]) {
  const salt = randomBytes(16);
  const options = { N: 2 ** log2N, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
  scryptSync('00000', salt, 32, options);
  const runs = log2N >= 16 ? 5 : 20;
  const started = process.hrtime.bigint();
  for (let index = 0; index < runs; index += 1) scryptSync(String(10_000 + index), salt, 32, options);
  const ms = Number(process.hrtime.bigint() - started) / 1e6 / runs;
  const perSecond = 1000 / ms;
  console.log(
    `${log2N}\t${ms.toFixed(1)}\t${perSecond.toFixed(1)}\t${(PIN_SPACE / perSecond / 3600).toFixed(2)} h`,
  );
}
