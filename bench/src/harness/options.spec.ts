import { parseOptions } from './options';

describe('parseOptions', () => {
  it('defaults to a short run of every service on 100,000 households', () => {
    expect(parseOptions([])).toMatchObject({
      mode: 'default',
      durationS: 2,
      warmupS: 0.5,
      households: 100_000,
      scale: 10,
      only: ['registry', 'loader', 'ussd', 'protocol', 'framework'],
      readings: 1_000_000,
      seedCache: true,
    });
  });

  it.each([
    [['--long'], { mode: 'long', durationS: 20, warmupS: 5 }],
    [['--smoke'], { mode: 'smoke', durationS: 0.5, households: 300, seedCache: false }],
    [['--no-seed-cache'], { seedCache: false }],
    [['--clear-seed-cache'], { clearSeedCache: true }],
    [['--filter', 'Stats', '--filter', 'log in'], { filters: ['stats', 'log in'] }],
    [
      ['--profile', '--service-env', 'LOG_LEVEL=warn', '--service-env', 'X_Y='],
      { profile: true, serviceEnv: { LOG_LEVEL: 'warn', X_Y: '' } },
    ],
    [
      ['--smoke', '--duration', '0.5', '--only', 'ussd,protocol'],
      { durationS: 0.5, only: ['ussd', 'protocol'] },
    ],
    [
      ['--households', '200000', '--scale', '5', '--json', 'out.json'],
      { households: 200_000, scale: 5, jsonOut: 'out.json' },
    ],
  ])('%j', (argv, expected) => {
    expect(parseOptions(argv)).toMatchObject(expected);
  });

  it.each([
    [['--only', 'billing'], /--only takes a list/],
    [['--duration', 'soon'], /--duration needs a number/],
    [['--duration', '0'], /must be above 0/],
    [['--households', '1.5'], /--households needs a whole number/],
    [['--smoke', '--long'], /exclude each other/],
    [['--fast'], /unknown option --fast/],
    [['--json'], /--json needs a file name/],
    [['--service-env', 'log_level=warn'], /--service-env takes NAME=value/],
  ])('rejects %j', (argv, message) => {
    expect(() => parseOptions(argv)).toThrow(message);
  });
});
