import { randomBytes, scrypt } from 'node:crypto';
import Redis from 'ioredis';
import { FLOOR_PIN_HASH_HEADER } from '../suites/ussd-sessions';
import { requireEnv, sendJson, sendText, serveFloor } from './floor-server';

// The least a USSD answer needs: read the session, write it back, answer a fixed screen. On a hop that must hash a
// PIN (marked by FLOOR_PIN_HASH_HEADER), the PIN floor: the same, plus the gateway's scrypt of that PIN.
const MENU = 'CON Welcome\n1. Know More\n2. Account Menu\n*. Exit';

/** The gateway's PIN hash parameters (PIN_HASH_COST_LOG2, default 14; r = 8, p = 1, 32 bytes, 16-byte salt). */
const costLog2 = Number(process.env.PIN_HASH_COST_LOG2 ?? '14');
const SCRYPT = { N: 2 ** costLog2, r: 8, p: 1, maxmem: 2 ** costLog2 * 8 * 128 * 2 };

const redis = new Redis(requireEnv('REDIS_URL'), { keyPrefix: requireEnv('REDIS_KEY_PREFIX') });

/** scrypt on libuv's pool, as the gateway's: unbounded here (the least work has no admission control). */
function hashPin(pin: string): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(pin, randomBytes(16), 32, SCRYPT, (error, hash) => (error ? reject(error) : resolve(hash))),
  );
}

serveFloor(
  'ussd-floor',
  async (request, body, response) => {
    if (request.method !== 'POST') return sendJson(response, 404, { message: 'not found' });
    const { sessionId, text } = JSON.parse(body) as { sessionId: string; text: string };
    const key = `floor:session:${sessionId}`;
    await redis.get(key);
    if (request.headers[FLOOR_PIN_HASH_HEADER] !== undefined)
      await hashPin(text.slice(text.lastIndexOf('*') + 1));
    await redis.set(key, text, 'EX', 180);
    sendText(response, 200, MENU);
  },
  async () => {
    await redis.quit();
  },
);
