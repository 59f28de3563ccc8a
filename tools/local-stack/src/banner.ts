import { Listening } from './service-lines';
import { StackSettings } from './settings';

/** Where the stack answers once every service is healthy. */
export interface StackUp {
  registry: Listening & { client: { client_id: string; secret: string } };
  ussd: Listening;
  protocol: Listening & { upstream: string };
  /** The databases are embedded ones, started for this run. */
  embeddedDatabases: boolean;
}

/** The lines `npm start` prints when the stack is up: every address, the development API client, what to try. */
export function upBanner(up: StackUp, settings: StackSettings): string {
  const { registry: registryAt, ussd: ussdAt, protocol: protocolAt } = up;
  const { client } = registryAt;
  const embedded = up.embeddedDatabases ? ' (embedded PostgreSQL)' : '';
  return [
    '',
    'dMRV local stack is up:',
    `  registry-api       ${registryAt.url}/v1        docs: ${registryAt.url}/v1/api-docs${embedded}`,
    `                     API client (shown once): ${client.client_id}:${client.secret}`,
    `                     try: curl -H 'Authorization: Bearer ${client.client_id}.${client.secret}' ${registryAt.url}/v1/households/stats`,
    `                     answers signed with a development key made for this run: ${registryAt.url}/v1/jwks.json`,
    `  ussd-gateway       ${ussdAt.url}/api/ussd   sessions: ${settings.redisUrl ? 'Redis' : 'in memory'}`,
    `                     simulator (a handset in the browser): ${ussdAt.url}/simulator`,
    `  protocol-gateway   ${protocolAt.url}/ixo/token/params   upstream: ${protocolAt.upstream}`,
    `  metrics (Prometheus): registry ${registryAt.metrics}   ussd ${ussdAt.metrics}   protocol ${protocolAt.metrics}`,
    'Press Ctrl-C to stop.',
    '',
  ].join('\n');
}
