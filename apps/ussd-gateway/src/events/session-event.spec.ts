import fc from 'fast-check';
import { parseSessionEvent } from './session-event';

/** A notification as Africa's Talking sends it (form fields are strings). */
const form = {
  sessionId: 'ATUid_5e1b2c',
  phoneNumber: '+254711000222',
  serviceCode: '*384*1#',
  networkCode: '63902',
  status: 'Success',
  durationInMillis: '15432',
  hopsCount: '4',
  input: '2*1*C0AF204B6*47213',
  lastAppResponse: 'CON Welcome, Wanjiku\n1. Account details\n2. Change PIN',
  errorMessage: '',
  cost: 'KES 0.0000',
  date: '2026-11-23 13:05:09',
};

const expected = {
  sessionId: 'ATUid_5e1b2c',
  phoneNumber: '+254711000222',
  serviceCode: '*384*1#',
  networkCode: '63902',
  status: 'Success',
  durationInMillis: 15432,
  hopsCount: 4,
  lastAppResponse: 'CON Welcome, Wanjiku\n1. Account details\n2. Change PIN',
  errorMessage: null,
  cost: 'KES 0.0000',
  date: '2026-11-23 13:05:09',
};

describe('parseSessionEvent', () => {
  it('reads a form notification, counts as numbers, empty fields as absent, and never keeps input', () => {
    expect(parseSessionEvent(form)).toEqual({ valid: true, event: expected });
  });

  it('reads the same notification as JSON, with numbers as numbers, and ignores fields of its own', () => {
    const json = {
      ...form,
      durationInMillis: 15432,
      hopsCount: 4,
      errorMessage: null,
      extra: 'x',
      __proto__: { status: 'Failed' },
    };
    expect(parseSessionEvent(json)).toEqual({ valid: true, event: expected });
  });

  it('needs only sessionId, phoneNumber, serviceCode and status', () => {
    const minimal = {
      sessionId: 's',
      phoneNumber: '+254711000222',
      serviceCode: '*384#',
      status: 'Incomplete',
    };
    expect(parseSessionEvent(minimal)).toEqual({
      valid: true,
      event: {
        ...minimal,
        networkCode: null,
        durationInMillis: null,
        hopsCount: null,
        lastAppResponse: null,
        errorMessage: null,
        cost: null,
        date: null,
      },
    });
  });

  it.each([
    ['sessionId', { sessionId: undefined }],
    ['sessionId', { sessionId: 'x'.repeat(101) }],
    ['phoneNumber', { phoneNumber: '0711000222' }],
    ['serviceCode', { serviceCode: '384' }],
    ['serviceCode', { serviceCode: `*${'1*'.repeat(40)}1#` }],
    ['networkCode', { networkCode: 'SAFARICOM' }],
    ['status', { status: 'success' }],
    ['status', { status: undefined }],
    ['durationInMillis', { durationInMillis: '-1' }],
    ['durationInMillis', { durationInMillis: 1.5 }],
    ['durationInMillis', { durationInMillis: '2147483648' }],
    ['hopsCount', { hopsCount: 'four' }],
    ['lastAppResponse', { lastAppResponse: 'x'.repeat(1001) }],
    ['lastAppResponse', { lastAppResponse: 'CON a\u0000b' }],
    ['errorMessage', { errorMessage: ['a'] }],
    ['cost', { cost: 'KES\t1' }],
    ['date', { date: 'x'.repeat(41) }],
    ['input', { input: 5 }],
    ['input', { input: '1'.repeat(2001) }],
  ])('refuses a malformed %s, by name', (field, override) => {
    expect(parseSessionEvent({ ...form, ...override })).toEqual({ valid: false, invalidFields: [field] });
  });

  it.each([null, [], 'status=Success', 42])('refuses the body %p, naming the required fields', (body) => {
    expect(parseSessionEvent(body)).toEqual({
      valid: false,
      invalidFields: ['sessionId', 'phoneNumber', 'serviceCode', 'status'],
    });
  });

  it('never lets input through, whatever else the body holds (property-based)', () => {
    // Other fields never hold the marker, so any trace of it in the result came from `input`.
    const value = fc
      .oneof(fc.string(), fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }))
      .filter((candidate) => !JSON.stringify(candidate).includes('PIN-'));
    const body = fc.record({
      sessionId: value,
      phoneNumber: value,
      serviceCode: value,
      status: fc.oneof(value, fc.constantFrom('Success', 'Failed')),
      durationInMillis: value,
      hopsCount: value,
      input: fc.oneof(
        fc.string().map((typed) => `PIN-${typed}`),
        fc.array(fc.string().map((typed) => `PIN-${typed}`)),
      ),
      extra: value,
    });
    fc.assert(
      fc.property(body, (candidate) => {
        expect(JSON.stringify(parseSessionEvent({ ...form, ...candidate }))).not.toContain('PIN-');
      }),
      { numRuns: 300 },
    );
  });
});
