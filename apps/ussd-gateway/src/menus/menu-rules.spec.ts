import { isTrivialPin, normalizeCustomerId, normalizeEmail, normalizeFullName } from './menu-rules';

describe('menu input rules', () => {
  it.each(['Jane Smith', "Mary-Jane O'Neil", 'Zoë Núñez', 'Ọlá Àjàyí', 'Anne  Marie '])(
    'accepts the name %j',
    (name) => {
      expect(normalizeFullName(name)).not.toBeNull();
    },
  );

  it.each(['J', 'J4ne', 'Jane_Smith', '-Jane', "Jane '", '00', '', 'A'.repeat(61)])(
    'refuses the name %j',
    (name) => {
      expect(normalizeFullName(name)).toBeNull();
    },
  );

  it('tidies spaces in names and lower-cases e-mails', () => {
    expect(normalizeFullName('  Anne   Marie ')).toBe('Anne Marie');
    expect(normalizeEmail('Jane@Example.ORG')).toBe('jane@example.org');
    expect(normalizeEmail('jane@localhost')).toBeNull();
    expect(normalizeEmail('not an email')).toBeNull();
  });

  it.each(['00000', '11111', '12345', '23456', '56789', '01234', '54321', '98765', '43210'])(
    'refuses the trivial PIN %s',
    (pin) => {
      expect(isTrivialPin(pin)).toBe(true);
    },
  );

  it.each(['24680', '13579', '12346', '90123', '00001'])('accepts the PIN %s', (pin) => {
    expect(isTrivialPin(pin)).toBe(false);
  });

  it('accepts Customer IDs with or without the C, in any case', () => {
    expect(normalizeCustomerId('c0a1b2c3d')).toBe('C0A1B2C3D');
    expect(normalizeCustomerId('0A1B2C3D')).toBe('C0A1B2C3D');
    expect(normalizeCustomerId('C0A1B2C')).toBeNull();
    expect(normalizeCustomerId('C0A1B2C3G')).toBeNull();
  });
});
