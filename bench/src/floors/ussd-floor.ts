import Redis from 'ioredis';
import { requireEnv, sendJson, sendText, serveFloor } from './floor-server';

// The least a USSD answer needs: read the session, write it back, answer a fixed screen.
const MENU = 'CON Welcome\n1. Know More\n2. Account Menu\n*. Exit';

const redis = new Redis(requireEnv('REDIS_URL'), { keyPrefix: requireEnv('REDIS_KEY_PREFIX') });

serveFloor(
  'ussd-floor',
  async (request, body, response) => {
    if (request.method !== 'POST') return sendJson(response, 404, { message: 'not found' });
    const { sessionId, text } = JSON.parse(body) as { sessionId: string; text: string };
    const key = `floor:session:${sessionId}`;
    await redis.get(key);
    await redis.set(key, text, 'EX', 180);
    sendText(response, 200, MENU);
  },
  async () => {
    await redis.quit();
  },
);
