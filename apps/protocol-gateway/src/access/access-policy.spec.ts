import { GatewayError } from '../errors/gateway-error';
import { AccessPolicy, parseApiKeys, selectorMatches } from './access-policy';

const claim = { service: 'ixo.claims.v1beta1.Query', method: 'Claim' };
const token = { service: 'ixo.token.v1beta1.Query', method: 'Params' };
const KEY = 'k-0123456789abcdef';
const SCOPED = 's-0123456789abcdef';

function failure(
  run: () => void,
): { status: number; code: number; message: string; headers: Record<string, string> } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    const gateway = error as GatewayError;
    return {
      status: gateway.status,
      code: gateway.grpcCode,
      message: gateway.message,
      headers: gateway.headers,
    };
  }
}

const CHALLENGE = { 'www-authenticate': 'ApiKey header="x-api-key", Bearer' };
const MISSING = 'an API key is required in the x-api-key header or as Authorization: Bearer <key>';
const NOT_BEARER = 'the Authorization header must be "Bearer <API key>"';

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

  it('names the header and Bearer in the 401 challenge', () => {
    expect(failure(() => policy.authorize({}, claim))).toEqual({
      status: 401,
      code: 16,
      message: MISSING,
      headers: CHALLENGE,
    });
  });

  it.each([
    ['Bearer', `Bearer ${KEY}`],
    ['the scheme in lower case', `bearer ${KEY}`],
    ['spaces around the token', `Bearer   ${KEY} `],
  ])('accepts a known key as Authorization: Bearer, with %s', (_name, authorization) => {
    expect(failure(() => policy.authorize({ authorization }, claim))).toBeUndefined();
  });

  it('takes the configured header first when both are sent', () => {
    expect(
      failure(() => policy.authorize({ 'x-api-key': KEY, authorization: 'Basic dXNlcjpwYXNz' }, claim)),
    ).toBeUndefined();
    expect(
      failure(() => policy.authorize({ 'x-api-key': SCOPED, authorization: `Bearer ${KEY}` }, token)),
    ).toEqual({
      status: 403,
      code: 7,
      message: 'the API key is not permitted to call ixo.token.v1beta1.Query/Params',
      headers: {},
    });
  });

  it.each([
    ['an unknown key', 'Bearer wrong-0123456789abcdef', 403, 7, 'the API key is not valid', {}],
    [
      'a scoped key outside its scope',
      `Bearer ${SCOPED}`,
      403,
      7,
      'the API key is not permitted to call ixo.token.v1beta1.Query/Params',
      {},
    ],
    ['another scheme', 'Basic dXNlcjpwYXNz', 401, 16, NOT_BEARER, CHALLENGE],
    ['the bare key', KEY, 401, 16, NOT_BEARER, CHALLENGE],
    ['Bearer without a token', 'Bearer', 401, 16, NOT_BEARER, CHALLENGE],
    ['Bearer with two tokens', `Bearer ${KEY} ${KEY}`, 401, 16, NOT_BEARER, CHALLENGE],
    ['Bearer with a character outside b64token', `Bearer ${KEY}!`, 401, 16, NOT_BEARER, CHALLENGE],
    ['an empty header', ' ', 401, 16, MISSING, CHALLENGE],
  ])('refuses Authorization with %s', (_name, authorization, status, code, message, headers) => {
    expect(failure(() => policy.authorize({ authorization }, token))).toEqual({
      status,
      code,
      message,
      headers,
    });
  });

  it('never lets Authorization through to the node behind API keys, and always on an open gateway', () => {
    expect(policy.forwardsAuthorization).toBe(false);
    expect(new AccessPolicy({ mode: 'open', header: 'x-api-key', grants: [] }).forwardsAuthorization).toBe(
      true,
    );
  });

  it.each([
    ['a full key on any route', KEY, token],
    ['a scoped key on its module', SCOPED, claim],
    ['a scoped key on its method', SCOPED, { service: 'ixo.token.v1beta1.Query', method: 'TokenDoc' }],
  ])('lets through %s', (_name, key, route) => {
    expect(failure(() => policy.authorize({ 'x-api-key': key }, route))).toBeUndefined();
  });

  it('accepts a Bearer token, or the bare key, when the header is Authorization', () => {
    const bearer = new AccessPolicy({
      mode: 'api-key',
      header: 'Authorization',
      grants: parseApiKeys([KEY]),
    });
    expect(failure(() => bearer.authorize({ authorization: `Bearer ${KEY}` }, claim))).toBeUndefined();
    expect(failure(() => bearer.authorize({ authorization: KEY }, claim))).toBeUndefined();
    expect(failure(() => bearer.authorize({}, claim))).toEqual({
      status: 401,
      code: 16,
      message: 'an API key is required as Authorization: Bearer <key>',
      headers: { 'www-authenticate': 'Bearer' },
    });
    expect(failure(() => bearer.authorize({ authorization: 'Bearer' }, claim))).toEqual({
      status: 401,
      code: 16,
      message: NOT_BEARER,
      headers: { 'www-authenticate': 'Bearer' },
    });
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
