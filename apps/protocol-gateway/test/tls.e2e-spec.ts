import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalChainNode, startGateway, startNode } from './harness';

// A throwaway CA-less self-signed certificate for a node named chain.local, made with the system's openssl.
function selfSignedCertificate(directory: string): { cert: string; key: string } {
  const cert = join(directory, 'cert.pem');
  const key = join(directory, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=chain.local',
      '-addext',
      'subjectAltName=DNS:chain.local',
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}

describe('TLS to the upstream', () => {
  let directory: string;
  let files: { cert: string; key: string };
  let node: LocalChainNode;

  beforeAll(async () => {
    directory = mkdtempSync(join(tmpdir(), 'dmrv-tls-'));
    files = selfSignedCertificate(directory);
    node = await startNode({
      tls: { certChain: readFileSync(files.cert), privateKey: readFileSync(files.key) },
    });
  });

  afterAll(async () => {
    await node.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('verifies the node against the configured CA and name', async () => {
    const gateway = await startGateway({
      GRPC_UPSTREAM: node.address,
      UPSTREAM_TLS: 'true',
      UPSTREAM_TLS_CA_FILE: files.cert,
      UPSTREAM_TLS_SERVER_NAME: 'chain.local',
    });
    try {
      expect((await gateway.get('/ixo/token/params')).body).toEqual({
        params: { ixo1155_contract_code: '25' },
      });
      expect((await gateway.get('/health')).status).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('refuses a node whose certificate it cannot verify (503), and a plaintext channel to a TLS node', async () => {
    for (const env of [{ UPSTREAM_TLS: 'true' }, { UPSTREAM_TLS: 'false' }]) {
      const gateway = await startGateway({
        GRPC_UPSTREAM: node.address,
        REFLECTION_ENABLED: 'false',
        UPSTREAM_DEADLINE_MS: '3000',
        ...env,
      });
      try {
        const answer = await gateway.get('/ixo/token/params');
        expect(answer.status).toBe(503);
        expect(answer.body.code).toBe(14);
      } finally {
        await gateway.close();
      }
    }
  });
});
