import { InvalidInputError } from '@dmrv/errors';
import { OPERATOR_PARAMETER_MAX_LENGTH, overlongParameter, refuseOverlong } from './parameter-limits';

describe('operator parameter limits', () => {
  it.each(Object.entries(OPERATOR_PARAMETER_MAX_LENGTH))(
    '%s: %i characters pass, one more is refused by name',
    (name, max) => {
      expect(overlongParameter({ [name]: 'a'.repeat(max) })).toBeUndefined();
      expect(overlongParameter({ [name]: 'a'.repeat(max + 1) })).toBe(
        `${name} must be at most ${max} characters`,
      );
    },
  );

  it('counts a surrogate pair once, as the session request does', () => {
    expect(overlongParameter({ sessionId: '😀'.repeat(100) })).toBeUndefined();
    expect(overlongParameter({ sessionId: '😀'.repeat(101) })).toBe(
      'sessionId must be at most 100 characters',
    );
  });

  it('leaves values that are not strings to the parser, and names the first overlong one', () => {
    expect(overlongParameter({ status: ['a'.repeat(100)], limit: undefined })).toBeUndefined();
    expect(overlongParameter({ phone: '+1', cursor: 'c'.repeat(33), to: 't'.repeat(30) })).toBe(
      'cursor must be at most 32 characters',
    );
    expect(() => refuseOverlong({ orderNumber: 'F'.repeat(17) })).toThrow(
      new InvalidInputError('orderNumber must be at most 16 characters'),
    );
  });
});
