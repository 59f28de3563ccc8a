import { parseUssdRequest } from './ussd-request';

const valid = { sessionId: 'ATUid_1', serviceCode: '*384*1#', phoneNumber: '+254712345678', text: '1*2' };

describe('parseUssdRequest', () => {
  it('keeps the four fields and drops the aggregator extras', () => {
    expect(parseUssdRequest({ ...valid, networkCode: '63902' })).toEqual({ valid: true, request: valid });
    expect(parseUssdRequest({ ...valid, text: '' })).toMatchObject({ valid: true });
    expect(parseUssdRequest({ ...valid, text: 'Zoë O’Brien-Núñez' })).toMatchObject({ valid: true });
  });

  it.each([
    ['sessionId', { sessionId: '' }],
    ['sessionId', { sessionId: 'x'.repeat(101) }],
    ['sessionId', { sessionId: 'a\nb' }],
    ['sessionId', { sessionId: 7 }],
    ['serviceCode', { serviceCode: '*384' }],
    ['serviceCode', { serviceCode: '*1234567#' }],
    ['serviceCode', { serviceCode: '*38a#' }],
    ['phoneNumber', { phoneNumber: '0712345678' }],
    ['phoneNumber', { phoneNumber: '+0712345678' }],
    ['phoneNumber', { phoneNumber: '+2547123456789012' }],
    ['phoneNumber', { phoneNumber: '+254712345678\n' }],
    ['text', { text: '1'.repeat(183) }],
    ['text', { text: '1\u0000' }],
    ['text', { text: null }],
    ['text', { text: ['1'] }],
  ])('refuses a bad %s (%j)', (field, override) => {
    expect(parseUssdRequest({ ...valid, ...override })).toEqual({ valid: false, invalidFields: [field] });
  });

  it('names every failing field, and every field of a body that is not an object', () => {
    expect(parseUssdRequest({ text: 5 })).toEqual({
      valid: false,
      invalidFields: ['sessionId', 'serviceCode', 'phoneNumber', 'text'],
    });
    for (const body of [null, undefined, 'text', 42, [valid]]) {
      expect(parseUssdRequest(body)).toEqual({
        valid: false,
        invalidFields: ['sessionId', 'serviceCode', 'phoneNumber', 'text'],
      });
    }
  });

  it('counts lengths in characters, as class-validator does: a surrogate pair is one', () => {
    expect(parseUssdRequest({ ...valid, text: '😀'.repeat(182) })).toMatchObject({ valid: true });
    expect(parseUssdRequest({ ...valid, text: '😀'.repeat(183) })).toMatchObject({ valid: false });
    expect(parseUssdRequest({ ...valid, sessionId: '😀'.repeat(100) })).toMatchObject({ valid: true });
    expect(parseUssdRequest({ ...valid, sessionId: '😀'.repeat(101) })).toEqual({
      valid: false,
      invalidFields: ['sessionId'],
    });
    expect(parseUssdRequest({ ...valid, sessionId: 'x'.repeat(100), text: '1'.repeat(182) })).toMatchObject({
      valid: true,
    });
    expect(parseUssdRequest({ ...valid, sessionId: '😀' })).toMatchObject({ valid: true });
  });
});
