import {
  CUSTOMER_ID_INPUT,
  cumulativeText,
  FLOOR_PIN_HASH_HEADER,
  isPinHashBusy,
  screenCheck,
  sessionIdentity,
  sessionSteps,
} from './ussd-sessions';

describe('USSD session steps', () => {
  it('joins inputs the way the aggregator does', () => {
    expect(cumulativeText([''])).toBe('');
    expect(cumulativeText(['', '1'])).toBe('1');
    expect(cumulativeText(['', '2', '2', 'Jane Smith'])).toBe('2*2*Jane Smith');
  });

  it('gives every pass of a flow its own session id and phone number, kept for all its hops', () => {
    const steps = sessionSteps(
      {
        name: 'info',
        hops: [
          { input: '', expect: 'CON' },
          { input: '1', expect: 'CON' },
          { input: '1', expect: 'END' },
        ],
      },
      sessionIdentity('bench'),
      true,
    );
    const bodies = (): Array<Record<string, string>> => {
      const context = {};
      return steps.map((step) => {
        step.prepare?.(context);
        return JSON.parse(step.body!(context)) as Record<string, string>;
      });
    };

    const first = bodies();
    const second = bodies();

    expect(first.map((body) => body.text)).toEqual(['', '1', '1*1']);
    expect(new Set(first.map((body) => body.sessionId)).size).toBe(1);
    expect(first[0]!.sessionId).not.toBe(second[0]!.sessionId);
    expect(first[0]!.phoneNumber).toMatch(/^\+2547\d{8}$/);
    expect(first[0]!.phoneNumber).not.toBe(second[0]!.phoneNumber);
    expect(first[0]).toMatchObject({ serviceCode: '*384#' });
  });

  it('accepts only the expected screen', () => {
    const check = screenCheck({ input: '1', expect: 'CON', contains: 'Pricing' });

    expect(check('CON Know More\n1. About\n2. Pricing')).toBeUndefined();
    expect(check('END Invalid input. Please try again.')).toMatch(/expected CON/);
    expect(check('CON Welcome\n1. Know More')).toMatch(/expected a screen with "Pricing"/);
  });

  it('marks the PIN hops for the floor only, and signs each pass in to the next account', () => {
    const flow = {
      name: 'log in',
      hops: [
        { input: '', expect: 'CON' as const },
        { input: CUSTOMER_ID_INPUT, expect: 'CON' as const },
        { input: '47213', expect: 'CON' as const, hashesPin: true },
      ],
    };
    const identities = sessionIdentity('bench', ['C00000001', 'C00000002']);
    const floorSteps = sessionSteps(flow, identities, false);
    const serviceSteps = sessionSteps(flow, identities, true);
    const texts = (steps: typeof floorSteps): string[] => {
      const context = {};
      return steps.map((step) => {
        step.prepare?.(context);
        return (JSON.parse(step.body!(context)) as { text: string }).text;
      });
    };

    expect(floorSteps.map((step) => step.headers?.[FLOOR_PIN_HASH_HEADER])).toEqual([
      undefined,
      undefined,
      '1',
    ]);
    expect(serviceSteps.map((step) => step.headers?.[FLOOR_PIN_HASH_HEADER])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(texts(floorSteps)).toEqual(['', 'C00000002', 'C00000002*47213']);
    expect(texts(serviceSteps)).toEqual(['', 'C00000001', 'C00000001*47213']);
  });

  it("sheds only the busy END of a PIN hop, only on the gateway's side, and marks the completing hop", () => {
    const flow = {
      name: 'log in',
      hops: [
        { input: '', expect: 'CON' as const, contains: 'Account' },
        { input: '47213', expect: 'CON' as const, contains: 'Welcome', hashesPin: true, completes: true },
        { input: '*', expect: 'END' as const },
      ],
    };
    const service = sessionSteps(flow, sessionIdentity('bench'), { check: true, shedBusyPinHops: true });
    const floor = sessionSteps(flow, sessionIdentity('bench'), false);
    const busy = 'END The service is busy checking PINs. Please dial again in a minute.';

    expect(
      service.map((step) => [step.shed !== undefined, step.completes ?? false, step.doesWork ?? false]),
    ).toEqual([
      [false, false, false],
      [true, true, true],
      [false, false, false],
    ]);
    expect(service[1]!.shed!(busy)).toBe(true);
    expect(
      service[1]!.shed!(
        'END The service is busy. Your account was not created. Please dial again in a minute.',
      ),
    ).toBe(true);
    expect(service[1]!.shed!('END Service temporarily unavailable. Please try again later.')).toBe(false);
    expect(service[1]!.expect!(busy)).toMatch(/expected CON/);
    expect(
      floor.map((step) => [step.shed !== undefined, step.completes ?? false, step.doesWork ?? false]),
    ).toEqual([
      [false, false, false],
      [false, true, true],
      [false, false, false],
    ]);
    expect(sessionSteps(flow, sessionIdentity('bench'), true)[1]!.shed).toBeUndefined();
  });

  it('recognises both busy texts of the PIN hash gate, and nothing else', () => {
    expect(isPinHashBusy('END The service is busy checking PINs. Please dial again in a minute.')).toBe(true);
    expect(isPinHashBusy('CON The service is busy')).toBe(false);
    expect(isPinHashBusy('END Invalid input. Please try again.')).toBe(false);
  });
});
