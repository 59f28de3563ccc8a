import { PinHashGate } from '../src/accounts/pin-hash-gate';
import { createAccount, Handset, useTestStack } from './ussd-test-kit';

const PIN = '47213';
const HASH_BUSY = 'END The service is busy checking PINs. Please dial again in a minute.';
const CREATE_BUSY = 'END The service is busy. Your account was not created. Please dial again in a minute.';
const CHANGE_BUSY = 'END The service is busy. Your PIN was not changed. Please dial again in a minute.';
const WRONG_PINS = ['10007', '10014', '10021', '10028', '10035', '10042'];

// One hash at a time and no queue: a second PIN check while one runs has nowhere to wait.
const stack = useTestStack('ussd-pin-admission', {
  PIN_HASH_CONCURRENCY: '1',
  PIN_HASH_QUEUE: '0',
  RATE_LIMIT_PER_IP: '100000',
});

/** A subscriber on the PIN screen of `customerId` (one hop: a dial string with the menu choices in it). */
async function onPinScreen(customerId: string): Promise<Handset> {
  const handset = new Handset(stack.app);
  handset['inputs'].push('2', '1', customerId);
  expect((await handset.repeat()).body).toMatch(/^CON Enter the 5-digit PIN for C/);
  return handset;
}

async function accountsNamed(fullName: string): Promise<number> {
  const { rows } = await stack.db.query<{ count: string }>(
    'SELECT count(*) FROM ussd_accounts WHERE full_name = $1',
    [fullName],
  );
  return Number(rows[0]!.count);
}

async function reservedAttempts(customerId: string): Promise<number> {
  const { rows } = await stack.db.query<{ reserved_total: number }>(
    'SELECT reserved_total FROM ussd_pin_guards WHERE customer_id = $1',
    [customerId],
  );
  return Number(rows[0]?.reserved_total ?? 0);
}

describe('PIN hashing admission (PIN_HASH_CONCURRENCY=1, PIN_HASH_QUEUE=0)', () => {
  it('answers PIN hops beyond the gate with the busy END text, without charging an attempt or locking', async () => {
    const { customerId } = await createAccount(stack.app, { name: 'Gate Keeper', pin: PIN });
    const handsets = await Promise.all(WRONG_PINS.map(() => onPinScreen(customerId)));
    const gate = stack.app.get(PinHashGate);
    const slot = gate.admit();
    let answers: string[];
    try {
      answers = await Promise.all(handsets.map((handset, index) => handset.send(WRONG_PINS[index]!)));
    } finally {
      slot.release();
    }
    expect(answers).toEqual(WRONG_PINS.map(() => HASH_BUSY));
    expect(await reservedAttempts(customerId)).toBe(0);

    expect(await (await onPinScreen(customerId)).send('10049')).toMatch(
      /^CON Customer ID or PIN is wrong\. 2 tries left\./,
    );
    expect(await (await onPinScreen(customerId)).send(PIN)).toMatch(/^CON Welcome, Gate/);
  });

  it('charges only the concurrent PIN hops it let through: the refused ones took no reservation', async () => {
    const { customerId } = await createAccount(stack.app, { name: 'Crowd Check', pin: PIN });
    const handsets = await Promise.all(WRONG_PINS.map(() => onPinScreen(customerId)));
    const answers = await Promise.all(handsets.map((handset) => handset.send(PIN)));
    const admitted = answers.filter((answer) => /^CON Welcome, Crowd/.test(answer));
    expect(answers.filter((answer) => answer !== HASH_BUSY && !admitted.includes(answer))).toEqual([]);
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(await reservedAttempts(customerId)).toBe(admitted.length);
    expect(await (await onPinScreen(customerId)).send('10049')).toMatch(
      /^CON Customer ID or PIN is wrong\. 2 tries left\./,
    );
  });

  it('answers an account creation the gate refuses with its busy END text, and creates nothing', async () => {
    const handset = new Handset(stack.app);
    await handset.dial();
    expect(await handset.sendAll('2', '2', 'Busy Creator', '00', PIN)).toMatch(
      /^CON Enter the same PIN again/,
    );
    const slot = stack.app.get(PinHashGate).admit();
    try {
      expect(await handset.send(PIN)).toBe(CREATE_BUSY);
    } finally {
      slot.release();
    }
    expect(await accountsNamed('Busy Creator')).toBe(0);
    // The aggregator's retry of that hop gets the same answer; a new dial creates the account.
    expect((await handset.repeat()).body).toBe(CREATE_BUSY);
    expect(await createAccount(stack.app, { name: 'Busy Creator', pin: PIN })).toMatchObject({
      customerId: expect.stringMatching(/^C[0-9A-F]{8}$/),
    });
    expect(await accountsNamed('Busy Creator')).toBe(1);
  });

  it('answers a PIN change the gate refuses with its busy END text, and keeps the old PIN', async () => {
    const { customerId } = await createAccount(stack.app, { name: 'Busy Changer', pin: PIN });
    const handset = await onPinScreen(customerId);
    expect(await handset.send(PIN)).toMatch(/^CON Welcome, Busy/);
    expect(await handset.sendAll('2', PIN, '86420')).toMatch(/^CON Enter the new PIN again/);
    const slot = stack.app.get(PinHashGate).admit();
    try {
      expect(await handset.send('86420')).toBe(CHANGE_BUSY);
    } finally {
      slot.release();
    }
    expect(await (await onPinScreen(customerId)).send('86420')).toMatch(
      /^CON Customer ID or PIN is wrong\. 2 tries left\./,
    );
    expect(await (await onPinScreen(customerId)).send(PIN)).toMatch(/^CON Welcome, Busy/);
  });
});
