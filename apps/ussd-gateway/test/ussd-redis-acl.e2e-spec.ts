import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import Redis from 'ioredis';
import { REPO_ROOT, TEST_REDIS_URL } from '@dmrv/testing';
import { Backing, createAccount, createBacking, Handset, OPERATOR_TOKEN, startApp } from './ussd-test-kit';

// The gateway as the Redis user compose and the docs give it (deploy/compose-secrets.sh writes its rules): every flow
// that touches Redis works, Redis refuses nothing the gateway sends (its ACL log stays empty of this user), and what a
// compromised gateway might try is refused. The key pattern is this test's key namespace instead of `ussd:*`.

const run = promisify(execFile);
const PIN = '58214';

/** The `ussd-gateway` user's rules from the ACL file deploy/compose-secrets.sh writes, without its name and password. */
async function shippedRules(): Promise<string[]> {
  const dir = join(mkdtempSync(join(tmpdir(), 'dmrv-acl-')), 'secrets');
  try {
    await run('sh', [join(REPO_ROOT, 'deploy', 'compose-secrets.sh'), dir]);
    const line = readFileSync(join(dir, 'redis_users_acl'), 'utf8')
      .split('\n')
      .find((entry) => entry.startsWith('user ussd-gateway '));
    if (!line) throw new Error('redis_users_acl has no ussd-gateway user');
    return line
      .split(' ')
      .slice(2)
      .filter((rule) => rule !== 'on' && !rule.startsWith('#'));
  } finally {
    rmSync(join(dir, '..'), { recursive: true, force: true });
  }
}

/** ACL LOG entries (denied commands and keys) of one user, as `reason object`. */
async function denials(admin: Redis, user: string): Promise<string[]> {
  const entries = (await admin.call('ACL', 'LOG', '128')) as unknown[][];
  return entries
    .map((entry) => {
      const fields = new Map<string, unknown>();
      for (let index = 0; index + 1 < entry.length; index += 2)
        fields.set(String(entry[index]), entry[index + 1]);
      return fields;
    })
    .filter((fields) => fields.get('username') === user)
    .map((fields) => `${String(fields.get('reason'))} ${String(fields.get('object'))}`);
}

describe('ussd-gateway as its own Redis ACL user', () => {
  const user = `dmrv-acl-${process.pid}-${Date.now().toString(36)}`;
  const password = randomBytes(24).toString('hex');
  let rules: string[];
  let backing: Backing;
  let admin: Redis;
  let app: NestFastifyApplication;
  let asGateway: Redis;

  beforeAll(async () => {
    rules = await shippedRules();
    backing = await createBacking('ussd-acl');
    admin = new Redis(TEST_REDIS_URL);
    const scoped = rules.map((rule) => (rule === '~ussd:*' ? `~${backing.redis.keyPrefix}*` : rule));
    expect(scoped).toContain(`~${backing.redis.keyPrefix}*`);
    await admin.call('ACL', 'SETUSER', user, 'reset', 'on', `>${password}`, ...scoped);
    const url = new URL(TEST_REDIS_URL);
    url.username = user;
    url.password = password;
    ({ app } = await startApp(backing.env({ REDIS_URL: url.toString() })));
    asGateway = new Redis(url.toString(), { maxRetriesPerRequest: 0, disableClientInfo: true });
  });

  afterAll(async () => {
    asGateway?.disconnect();
    await app?.close();
    await admin?.call('ACL', 'DELUSER', user);
    admin?.disconnect();
    await backing?.cleanup();
  });

  it('limits the user to its key prefix and commands: no FLUSHALL, FLUSHDB, CONFIG, MODULE, KEYS or DEBUG', () => {
    expect(rules).toEqual(expect.arrayContaining(['resetkeys', '~ussd:*', 'resetchannels', '-@all']));
    expect(
      rules.filter((rule) => rule.startsWith('+@') || rule === 'allcommands' || rule === 'allkeys'),
    ).toEqual([]);
  });

  it('serves every flow that touches Redis with nothing refused: sessions, locks, PINs, rate limits, notifications, the session list', async () => {
    const { customerId, handset: creator } = await createAccount(app, { name: 'Amina Njeri', pin: PIN });
    const handset = new Handset(app, creator.phoneNumber);
    await handset.dial();
    await handset.sendAll('2', '1', customerId);
    expect(await handset.send(PIN)).toMatch(/^CON Welcome, Amina/);
    expect(await handset.send('2')).toMatch(/^CON Enter your current PIN/);
    expect(await handset.send('99999')).toMatch(/^CON Wrong PIN\. 2 tries left\./);
    await handset.send(PIN);
    await handset.send('80642');
    expect(await handset.send('80642')).toMatch(/^CON Your PIN has been changed\./);
    // A retry of the last hop: answered from the session's record.
    expect((await handset.repeat()).body).toMatch(/^CON Your PIN has been changed\./);
    const sessions = await app.inject({
      method: 'GET',
      url: '/api/ussd/sessions',
      headers: { 'x-operator-token': OPERATOR_TOKEN },
    });
    expect(sessions.statusCode).toBe(200);
    const notification = await app.inject({
      method: 'POST',
      url: '/api/ussd/events',
      payload: {
        sessionId: handset.sessionId,
        phoneNumber: handset.phoneNumber,
        serviceCode: '*384#',
        status: 'Success',
      },
    });
    expect(notification.json()).toEqual({ status: 'recorded' });
    expect(await handset.send('1')).toMatch(/^END /);
    expect(await denials(admin, user)).toEqual([]);
    expect((await admin.keys(`${backing.redis.keyPrefix}*`)).length).toBeGreaterThan(0);
  });

  it('refuses what a compromised gateway would try, with NOPERM', async () => {
    const refused = async (command: string, ...args: string[]) =>
      asGateway.call(command, ...args).then(
        () => 'allowed',
        (error: Error) => error.message.split(' ')[0],
      );
    for (const [command, ...args] of [
      ['FLUSHALL'],
      ['FLUSHDB'],
      ['CONFIG', 'GET', 'requirepass'],
      ['MODULE', 'LIST'],
      ['KEYS', '*'],
      ['ACL', 'LIST'],
      ['SCAN', '0'],
      ['GET', 'some-other-service:key'],
      ['SET', 'ussd-elsewhere:key', '1'],
      ['EVAL', "return redis.call('GET', KEYS[1])", '1', 'other:key'],
    ])
      expect({ command: [command, ...args].join(' '), answer: await refused(command!, ...args) }).toEqual({
        command: [command, ...args].join(' '),
        answer: 'NOPERM',
      });
    // Servers started without enable-debug-command refuse DEBUG to everyone, before the ACL: asked of the ACL itself.
    expect(await admin.call('ACL', 'DRYRUN', user, 'DEBUG', 'SLEEP', '0')).toMatch(
      /no permissions to run the 'debug' command/,
    );
    expect(await asGateway.get(`${backing.redis.keyPrefix}absent`)).toBeNull();
  });
});
