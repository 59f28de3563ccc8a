#!/usr/bin/env node
// The answer-cache memory attack of issue 27, run by hand against the built protocol gateway (not part of npm test):
// `GET /ixo/token/params` with a unique 8 KB Grpc-Metadata-X-Pad header per request (`pad`), or a unique
// x-cosmos-block-height per request (`heights`), for a fixed time, while the gateway's RSS and its cache gauges are
// sampled. Starts its own local chain node and gateway on loopback ports chosen by the kernel, and stops both.
//
//   node scripts/protocol-cache-attack.mjs [--mode pad|heights] [--seconds 60] [--concurrency 16]
//                                          [--gateway apps/protocol-gateway/dist/main.js] [--env KEY=VALUE ...]
//
// Build first: node scripts/pnpm.mjs --filter "@dmrv/protocol-gateway..." --filter @dmrv/local-chain-node run build
import { fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    mode: { type: 'string', default: 'pad' },
    seconds: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '16' },
    gateway: { type: 'string', default: 'apps/protocol-gateway/dist/main.js' },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const mode = values.mode;
if (mode !== 'pad' && mode !== 'heights') throw new Error('--mode must be pad or heights');
const seconds = Math.min(Number(values.seconds), 300);
const concurrency = Math.min(Number(values.concurrency), 64);
const root = resolve(import.meta.dirname, '..');
const LATEST = 4_200_000;

function startNode() {
  const child = spawn(process.execPath, [resolve(root, 'tools/local-chain-node/dist/main.js')], {
    env: {
      ...process.env,
      CHAIN_NODE_HOST: '127.0.0.1',
      CHAIN_NODE_PORT: '0',
      CHAIN_NODE_BLOCK_HEIGHT: String(LATEST),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      const line = text.split('\n').find((candidate) => candidate.includes('"listening"'));
      if (line) done({ child, address: JSON.parse(line).listening });
    });
    child.once('exit', (code) => fail(new Error(`local chain node exited with ${code}`)));
  });
}

function startGateway(upstream) {
  const extra = Object.fromEntries(values.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2)));
  const child = fork(resolve(root, values.gateway), [], {
    env: {
      ...process.env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      METRICS_PORT: '0',
      LOG_LEVEL: 'warn',
      GRPC_UPSTREAM: upstream,
      ...extra,
    },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((done, fail) => {
    child.once('message', (announcement) => done({ child, ...announcement }));
    child.once('exit', (code) => fail(new Error(`gateway exited with ${code}`)));
  });
}

function rssMiB(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((candidate) => candidate.startsWith('VmRSS:'));
  return Math.round(Number(/(\d+)/.exec(line)[1]) / 1024);
}

async function gauges(metricsPort) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const read = (name) => {
    const line = text
      .split('\n')
      .find((candidate) => candidate.startsWith(`${name}{`) || candidate.startsWith(`${name} `));
    return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
  };
  return {
    heapUsedMiB: Math.round((read('nodejs_heap_size_used_bytes') ?? 0) / 1024 / 1024),
    cacheBytes: read('dmrv_protocol_cache_bytes'),
    cacheEntries: read('dmrv_protocol_cache_entries'),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
function get(base, headers) {
  return new Promise((done) => {
    const req = request(`${base}/ixo/token/params`, { agent, headers }, (res) => {
      res.resume();
      res.once('end', () => done(res.statusCode));
    });
    req.once('error', () => done('error'));
    req.end();
  });
}

const node = await startNode();
const gateway = await startGateway(node.address).catch((error) => {
  node.child.kill('SIGTERM');
  throw error;
});
const pid = gateway.child.pid;
const statuses = new Map();
let sent = 0;
const pad = 'p'.repeat(8 * 1024);
const headersFor = (n) =>
  mode === 'pad'
    ? { 'grpc-metadata-x-pad': `${pad}${n}` }
    : { 'x-cosmos-block-height': String(LATEST - 1 - (n % LATEST)) };

try {
  await get(gateway.listening, {});
  const before = { rssMiB: rssMiB(pid), ...(await gauges(gateway.metricsPort)) };
  console.log(JSON.stringify({ mode, seconds, concurrency, before }));
  const deadline = Date.now() + seconds * 1000;
  const samples = [];
  const sampler = setInterval(() => {
    void gauges(gateway.metricsPort).then((g) => {
      const sample = {
        t: Math.round((Date.now() - (deadline - seconds * 1000)) / 1000),
        rssMiB: rssMiB(pid),
        sent,
        ...g,
      };
      samples.push(sample);
      console.log(JSON.stringify(sample));
    });
  }, 5_000);
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const n = sent;
        sent += 1;
        const status = await get(gateway.listening, headersFor(n));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  clearInterval(sampler);
  const after = { rssMiB: rssMiB(pid), ...(await gauges(gateway.metricsPort)) };
  const peakRssMiB = Math.max(before.rssMiB, after.rssMiB, ...samples.map((sample) => sample.rssMiB));
  console.log(JSON.stringify({ after, peakRssMiB, requests: sent, statuses: Object.fromEntries(statuses) }));
} finally {
  agent.destroy();
  gateway.child.kill('SIGTERM');
  node.child.kill('SIGTERM');
}
