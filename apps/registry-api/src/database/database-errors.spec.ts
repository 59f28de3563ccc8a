import { isDatabaseUnavailable, isSilentConnection } from './database-errors';

const withCode = (code: string, message = 'x'): Error => Object.assign(new Error(message), { code });

describe('database errors', () => {
  it.each([
    [
      'a query that overran statement_timeout',
      withCode('57014', 'canceling statement due to statement timeout'),
    ],
    ['a server shutting down', withCode('57P01', 'terminating connection due to administrator command')],
    ['a server starting up', withCode('57P03', 'the database system is starting up')],
    ['too many connections', withCode('53300', 'sorry, too many clients already')],
    ['a refused password', withCode('28P01', 'password authentication failed for user "reader"')],
    ['a dropped database', withCode('3D000', 'database "registry" does not exist')],
    ['a connection exception', withCode('08006')],
    ['a refused connection', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['a reset connection', withCode('ECONNRESET', 'read ECONNRESET')],
    ['an unresolvable host', withCode('ENOTFOUND', 'getaddrinfo ENOTFOUND db')],
    ['a silent connection', new Error('Query read timeout')],
    ['a full pool', new Error('timeout exceeded when trying to connect')],
    [
      'a connection that never opened',
      new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
    ],
    ['a dropped connection', new Error('Connection terminated unexpectedly')],
    ['a closed pool', new Error('Cannot use a pool after calling end on the pool')],
  ])('%s is the database being unavailable (503)', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a NUL in a text parameter', withCode('22021', 'invalid byte sequence for encoding "UTF8": 0x00')],
    ['a date out of range', withCode('22008', 'date/time field value out of range')],
    ['a syntax error', withCode('42601', 'syntax error at or near "FORM"')],
    ['a missing table', withCode('42P01', 'relation "households" does not exist')],
    ['an internal error', withCode('XX000')],
    ['a programming error', new TypeError('Cannot read properties of undefined')],
    ['not an error', 'Query read timeout'],
  ])('%s is not (500)', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('calls a connection silent only when it stopped answering', () => {
    expect(isSilentConnection(new Error('Query read timeout'))).toBe(true);
    expect(isSilentConnection(new Error('Connection terminated due to connection timeout'))).toBe(true);
    expect(isSilentConnection(new Error('Connection terminated unexpectedly'))).toBe(false);
    expect(isSilentConnection(withCode('57014'))).toBe(false);
  });
});
