import { cumulativeText, screenCheck, sessionIdentity, sessionSteps } from './ussd-sessions';

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
});
