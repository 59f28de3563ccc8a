import { CUSTOMER_ID_INPUT, cumulativeText, FLOOR_PIN_HASH_HEADER, screenCheck, sessionIdentity, sessionSteps } from './ussd-sessions';

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

    expect(floorSteps.map((step) => step.headers?.[FLOOR_PIN_HASH_HEADER])).toEqual([undefined, undefined, '1']);
    expect(serviceSteps.map((step) => step.headers?.[FLOOR_PIN_HASH_HEADER])).toEqual([undefined, undefined, undefined]);
    expect(texts(floorSteps)).toEqual(['', 'C00000002', 'C00000002*47213']);
    expect(texts(serviceSteps)).toEqual(['', 'C00000001', 'C00000001*47213']);
  });

  it('takes an answer it is told to accept on any hop, and nothing else', () => {
    const check = screenCheck({ input: '47213', expect: 'CON', contains: 'Welcome' }, (body) => body.startsWith('END The service is busy'));

    expect(check('END The service is busy checking PINs. Please dial again in a minute.')).toBeUndefined();
    expect(check('END Service temporarily unavailable. Please try again later.')).toMatch(/expected CON/);
  });
});
