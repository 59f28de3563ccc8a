import { CONSTANT_ANSWER, sendJson, serveFloor } from './floor-server';

// The framework reference's floor: the same JSON object, written by node:http.
serveFloor(
  'constant-floor',
  (request, _body, response) => {
    if (request.method === 'GET' && request.url === '/constant') sendJson(response, 200, CONSTANT_ANSWER);
    else sendJson(response, 404, { message: 'not found' });
    return Promise.resolve();
  },
  () => Promise.resolve(),
);
