import { GatewayError } from '../errors/gateway-error';
import { AccessPolicy, parseApiKeys, selectorMatches } from './access-policy';

const claim = { service: 'ixo.claims.v1beta1.Query', method: 'Claim' };
const token = { service: 'ixo.token.v1beta1.Query', method: 'Params' };
const KEY = 'k-0123456789abcdef';
const SCOPED = 's-0123456789abcdef';

function failure(
  run: () => void,
): { status: number; code: number; headers: Record<string, string> } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    const gateway = error as GatewayError;
    return { status: gateway.status, code: gateway.grpcCode, headers: gateway.headers };
  }
}

describe('access policy', () => {
  const policy = new AccessPolicy({
    mode: 'api-key',
    header: 'X-Api-Key',
    grants: parseApiKeys([KEY, `${SCOPED}@claims+ixo.token.v1beta1.Query/TokenDoc`]),
  });

  it.each([
    ['no header', {}, claim, 401, 16],
    ['an empty header', { 'x-api-key': ' ' }, claim, 401, 16],
    ['an unknown key', { 'x-api-key': 'wrong-0123456789abcdef' }, claim, 403, 7],
    ['a scoped key outside its scope', { 'x-api-key': SCOPED }, token, 403, 7],
  ])('refuses %s', (_name, headers, route, status, code) => {
    expect(failure(() => policy.authorize(headers, route))).toMatchObject({ status, code });
  });

  it('names the header in the 401 challenge', () => {
    expect(failure(() => policy.authorize({}, claim))?.headers).toEqual({
      'www-authenticate': 'ApiKey header="x-api-key"',
    });
  });

  it.each([
    ['a full key on any route', KEY, token],
    ['a scoped key on its module', SCOPED, claim],
    ['a scoped key on its method', SCOPED, { service: 'ixo.token.v1beta1.Query', method: 'TokenDoc' }],
  ])('lets through %s', (_name, key, route) => {
    expect(failure(() => policy.authorize({ 'x-api-key': key }, route))).toBeUndefined();
  });

  it('accepts a Bearer token when the header is Authorization', () => {
    const bearer = new AccessPolicy({
      mode: 'api-key',
      header: 'authorization',
      grants: parseApiKeys([KEY]),
    });
    expect(failure(() => bearer.authorize({ authorization: `Bearer ${KEY}` }, claim))).toBeUndefined();
  });

  it('lets everything through when open', () => {
    const open = new AccessPolicy({ mode: 'open', header: 'x-api-key', grants: [] });
    expect(failure(() => open.authorize({}, claim))).toBeUndefined();
  });

  it.each([
    ['*', true],
    ['claims', true],
    ['ixo.claims.v1beta1.Query', true],
    ['ixo.claims.v1beta1.Query/Claim', true],
    ['ixo.claims.v1beta1.Query/ClaimList', false],
    ['token', false],
    ['ixo', false],
  ])('selector %s matches claims Claim: %s', (selector, expected) => {
    expect(selectorMatches(selector, claim)).toBe(expected);
  });
});
