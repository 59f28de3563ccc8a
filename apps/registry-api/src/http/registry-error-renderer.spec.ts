import { DependencyUnavailableError, normalizeException, NotFoundError } from '@dmrv/errors';
import { AuthenticationBusyError } from '../auth/hash-gate';
import { renderRegistryError } from './registry-error-renderer';

const request = { method: 'GET', url: '/v1/households/stats' };
const render = (error: unknown) => renderRegistryError(normalizeException(error), request);

describe('renderRegistryError', () => {
  it('says what to do on a 503, never why', () => {
    const cause = new Error('connect ECONNREFUSED 10.0.0.5:5432 user=registry_reader');
    expect(render(new DependencyUnavailableError('database', cause))).toEqual({
      status: 503,
      body: { message: 'The registry database is unavailable; retry later' },
    });
    expect(render(new AuthenticationBusyError())).toEqual({
      status: 503,
      body: { message: 'Too many authentications in progress; retry shortly' },
    });
  });

  it('renders every other error as the shared { message } body', () => {
    expect(render(new NotFoundError('No project p-9'))).toEqual({
      status: 404,
      body: { message: 'No project p-9' },
    });
    expect(render(new Error('password=hunter2'))).toEqual({
      status: 500,
      body: { message: 'Internal server error' },
    });
  });
});
