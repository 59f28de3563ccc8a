import fc from 'fast-check';
import { ENTITY_FORMATS, ENTITY_NAMES, loadOrder } from './entity-formats';
import { FieldType, parseField } from './field-types';
import { validateRow } from './row-validator';

const kg: FieldType = { kind: 'decimal', integerDigits: 9, scale: 3, min: 0, minExclusive: true };

describe('parseField', () => {
  it.each<[string, FieldType, unknown, ReturnType<typeof parseField>, boolean?]>([
    ['an identifier', { kind: 'id' }, 'hh-0001:a.b_c', { ok: true, value: 'hh-0001:a.b_c' }],
    [
      'an identifier with a space',
      { kind: 'id' },
      'hh 1',
      { ok: false, rule: 'must be an identifier (letters, digits, . _ : -; at most 100 characters)' },
    ],
    [
      'a number where an identifier belongs (NDJSON)',
      { kind: 'id' },
      12,
      { ok: false, rule: 'must be an identifier (letters, digits, . _ : -; at most 100 characters)' },
    ],
    ['a missing required value', { kind: 'id' }, '', { ok: false, rule: 'is required' }],
    ['a missing optional value', { kind: 'text', maxLength: 5 }, null, { ok: true, value: null }, false],
    [
      'text with a tab',
      { kind: 'text', maxLength: 50 },
      'a\tb',
      { ok: false, rule: 'must not contain control characters (tab, newline …)' },
    ],
    [
      'text with a lone surrogate (an NDJSON "\\ud800"), which has no UTF-8 form',
      { kind: 'text', maxLength: 50 },
      'Kafu\ud800',
      { ok: false, rule: 'must be Unicode text (a lone surrogate such as \\ud800 has no UTF-8 form)' },
    ],
    [
      'text with outer spaces',
      { kind: 'text', maxLength: 50 },
      ' a',
      { ok: false, rule: 'must not start or end with spaces' },
    ],
    ['kilograms with three decimals', kg, '12.125', { ok: true, value: '12.125' }],
    ['kilograms as a JSON number', kg, 12.5, { ok: true, value: '12.5' }],
    ['kilograms with four decimals', kg, '1.0005', { ok: false, rule: 'must have at most 3 decimal places' }],
    ['kilograms of zero where more is needed', kg, '0', { ok: false, rule: 'must be greater than 0' }],
    [
      'kilograms in exponent form',
      kg,
      '1e3',
      {
        ok: false,
        rule: 'must be a decimal number with at most 3 decimal places (digits, an optional point, no exponent)',
      },
    ],
    ['kilograms too large for the column', kg, '1000000000', { ok: false, rule: 'must be below 1000000000' }],
    ['a leap day', { kind: 'date' }, '2024-02-29', { ok: true, value: '2024-02-29' }],
    [
      'a day that does not exist',
      { kind: 'date' },
      '2023-02-29',
      { ok: false, rule: 'must be a date YYYY-MM-DD' },
    ],
    [
      'a date-time with an offset',
      { kind: 'timestamp' },
      '2024-04-21T06:00:00+02:00',
      { ok: true, value: '2024-04-21T06:00:00+02:00' },
    ],
    [
      'a date-time without a zone',
      { kind: 'timestamp' },
      '2024-04-21T06:00:00',
      { ok: false, rule: 'must be an ISO 8601 date-time with a time zone (2024-01-01T08:30:00Z)' },
    ],
    [
      'an integer out of range',
      { kind: 'integer', min: 2000, max: 2100 },
      '1999',
      { ok: false, rule: 'must be a whole number from 2000 to 2100' },
    ],
    [
      'fuels in any order, written in the API order',
      { kind: 'fuels' },
      'Biomass + LPG',
      { ok: true, value: '{LPG,Biomass}' },
    ],
    ['fuels as a JSON array', { kind: 'fuels' }, ['Charcoal'], { ok: true, value: '{Charcoal}' }],
    ['no fuels', { kind: 'fuels' }, '', { ok: true, value: '{}' }],
    ['a fuel named twice', { kind: 'fuels' }, 'LPG + LPG', { ok: false, rule: 'names LPG twice' }],
    [
      'an unknown fuel',
      { kind: 'fuels' },
      'lpg',
      {
        ok: false,
        rule: '"lpg" is not one of LPG, Electricity, Ethanol, Biogas, Kerosene, Charcoal, Biomass',
      },
    ],
  ])('%s', (_name, type, raw, expected, required = true) => {
    expect(parseField(type, raw, required)).toEqual(expected);
  });
});

describe('validateRow', () => {
  it('checks the rules between columns once every column has parsed', () => {
    const blocks = ENTITY_FORMATS['credit-blocks'];
    const row = {
      id: 'b-1',
      project_id: 'p',
      vintage: '2024',
      serial_start: '10',
      serial_end: '20',
      quantity: '10',
    };
    expect(validateRow(blocks, 7, (column) => row[column.name as keyof typeof row])).toEqual({
      ok: false,
      problems: [
        { line: 7, column: 'serial_end', value: '20', rule: 'must be serial_start + quantity - 1 (19)' },
      ],
      key: ['b-1'],
    });
    const events = ENTITY_FORMATS['credit-events'];
    const transfer = {
      id: '3',
      block_id: 'b-1',
      kind: 'transferred',
      event_date: '2024-01-01',
      quantity: '1',
      sender: 'A',
    };
    expect(validateRow(events, 2, (column) => transfer[column.name as keyof typeof transfer])).toEqual({
      ok: false,
      problems: [{ line: 2, column: 'recipient', value: '', rule: 'is required on a transfer' }],
      key: ['3'],
    });
  });

  it('gives back the key of a bad row only when the key itself is readable', () => {
    const households = ENTITY_FORMATS.households;
    const bad = {
      id: 'not an id',
      project_id: 'p',
      region: 'r',
      density: 'low',
      onboarding_date: '2024-01-01',
    };
    const check = validateRow(households, 2, (column) => bad[column.name as keyof typeof bad]);
    expect(check).toMatchObject({ ok: false, key: undefined });
  });

  it('never throws, whatever JSON value or text each column holds', () => {
    const anything = fc.oneof(fc.jsonValue(), fc.string(), fc.constant(undefined));
    fc.assert(
      fc.property(
        fc.constantFrom(...ENTITY_NAMES),
        fc.array(anything, { minLength: 8, maxLength: 8 }),
        (entity, values) => {
          const check = validateRow(ENTITY_FORMATS[entity], 1, (_column, index) => values[index]);
          expect(typeof check.ok).toBe('boolean');
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe('loadOrder', () => {
  it('puts every entity after the entities it references', () => {
    const order = loadOrder();
    expect(order).toEqual([
      'projects',
      'households',
      'devices',
      'fuel-readings',
      'fuel-purchases',
      'fuel-deliveries',
      'credit-blocks',
      'credit-events',
    ]);
    for (const entity of order) {
      for (const reference of ENTITY_FORMATS[entity].references)
        expect(order.indexOf(reference.entity)).toBeLessThan(order.indexOf(entity));
    }
  });
});
