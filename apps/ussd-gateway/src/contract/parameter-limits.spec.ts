import { IsOptional, Matches } from 'class-validator';
import { strictValidationPipe } from '@dmrv/http-kit';
import { BoundedParameter, BoundedString, OPERATOR_PARAMETER_MAX_LENGTH } from './parameter-limits';

/**
 * One optional bounded parameter of each name, and a rule after the bound that a long value must never reach: the
 * decorators applied in the order TypeScript applies `@IsOptional() @Matches(…) @BoundedString(name)`.
 */
class Bounded {}
for (const name of Object.keys(OPERATOR_PARAMETER_MAX_LENGTH) as BoundedParameter[]) {
  BoundedString(name)(Bounded.prototype, name);
  Matches(/^(a*|(😀)*)$/u, { message: `${name} reached its format rule` })(Bounded.prototype, name);
  IsOptional()(Bounded.prototype, name);
}

const check = (query: Record<string, unknown>): Promise<unknown> =>
  strictValidationPipe().transform(query, { type: 'query', metatype: Bounded });
const refusal = (query: Record<string, unknown>): Promise<unknown> =>
  check(query).then(
    () => 'accepted',
    (error: { getResponse(): unknown }) => error.getResponse(),
  );

describe('operator parameter limits (BoundedString under the strict validation pipe)', () => {
  it.each(Object.entries(OPERATOR_PARAMETER_MAX_LENGTH))(
    '%s: %i characters pass, one more is refused by name before any other rule',
    async (name, max) => {
      await expect(refusal({ [name]: 'a'.repeat(max) })).resolves.toBe('accepted');
      await expect(refusal({ [name]: 'b'.repeat(max + 1) })).resolves.toMatchObject({
        statusCode: 400,
        message: `${name} must be at most ${max} characters`,
      });
    },
  );

  it('counts a surrogate pair once, as the session request does', async () => {
    await expect(refusal({ sessionId: '😀'.repeat(100) })).resolves.toBe('accepted');
    await expect(refusal({ sessionId: '😀'.repeat(101) })).resolves.toMatchObject({
      message: 'sessionId must be at most 100 characters',
    });
  });

  it('refuses a parameter given twice by name, before its length', async () => {
    await expect(refusal({ status: ['a'.repeat(100), 'a'] })).resolves.toMatchObject({
      message: 'status must be given once',
    });
  });
});
