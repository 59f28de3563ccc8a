import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { createConnection } from 'node:net';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  type AnswerToVerify,
  type Ed25519PublicJwk,
  jwkThumbprint,
  type JsonWebKeySet,
  parseJwks,
} from '@dmrv/http-signatures';

/** A fresh Ed25519 key: its PEM (what SIGNING_KEY takes) and its public JWK as the service publishes it. */
export interface TestSigningKey {
  pem: string;
  jwk: Ed25519PublicJwk;
}

export async function testSigningKey(): Promise<TestSigningKey> {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const { x } = publicKey.export({ format: 'jwk' });
  return {
    pem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
    jwk: { kty: 'OKP', crv: 'Ed25519', x: x!, kid: await jwkThumbprint(x!), use: 'sig' },
  };
}

/** The authority the tests send (`Host`), so every target URI is `http://registry.test/…`. */
export const TEST_ORIGIN = 'http://registry.test';

/** An answer as a client holds it: the request it sent and the response it received, bytes as they came. */
export async function answerTo(
  app: NestFastifyApplication,
  path: string,
  options: { method?: 'GET' | 'HEAD'; headers?: Record<string, string> } = {},
): Promise<AnswerToVerify> {
  const method = options.method ?? 'GET';
  const response = await app.inject({
    method,
    url: path,
    headers: { host: 'registry.test', ...options.headers },
  });
  return {
    request: { method, url: `${TEST_ORIGIN}${path}` },
    response: {
      status: response.statusCode,
      headers: response.headers as Record<string, string | string[] | undefined>,
      body: new Uint8Array(response.rawPayload),
    },
  };
}

export async function publishedKeys(app: NestFastifyApplication, prefix = '/v1'): Promise<JsonWebKeySet> {
  const response = await app.inject({ method: 'GET', url: `${prefix}/jwks.json` });
  expect(response.statusCode).toBe(200);
  return parseJwks(response.json());
}

export function header(answer: AnswerToVerify, name: string): string {
  return String((answer.response.headers as Record<string, unknown>)[name]);
}

/** Writes raw bytes to a listening server and returns every byte of its answer, read until it closes the connection. */
export async function rawExchange(port: number, request: string): Promise<Buffer> {
  const socket = createConnection({ host: '127.0.0.1', port });
  socket.on('error', () => undefined);
  const chunks: Buffer[] = [];
  socket.on('data', (chunk: Buffer) => chunks.push(chunk));
  await once(socket, 'connect');
  socket.write(request);
  await once(socket, 'close');
  return Buffer.concat(chunks);
}
