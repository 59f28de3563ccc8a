import { ClosableClient } from './closable-client';
import { dataSourceOptions } from './data-source';

const URL = 'postgres://postgres@127.0.0.1:5432/registry';

describe('dataSourceOptions', () => {
  it('bounds every wait of the service: connect, statement, silent connection; keepalive on; closable sockets', () => {
    const options = dataSourceOptions(URL, 10, {
      connectTimeoutMs: 2000,
      queryTimeoutMs: 3000,
      keepAliveIdleMs: 15_000,
    });
    expect(options.extra).toEqual({
      max: 10,
      connectionTimeoutMillis: 2000,
      statement_timeout: 3000,
      query_timeout: 4000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 15_000,
      Client: ClosableClient,
    });
  });

  it('lets the CLI (migrations, seeding, refreshes) run statements as long as they need', () => {
    expect(dataSourceOptions(URL, 2).extra).toEqual({ max: 2, connectionTimeoutMillis: 5000 });
  });
});
