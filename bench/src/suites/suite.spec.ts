import { parseOptions } from '../harness/options';
import { passesOf, selected } from './suite';

describe('selected', () => {
  const choose = (filters: string[], workload: string): boolean =>
    selected({ options: parseOptions(filters.flatMap((filter) => ['--filter', filter])) }, workload);

  it('takes every workload without a filter, and those a filter names a part of', () => {
    expect(choose([], 'GET /v1/devices/status')).toBe(true);
    expect(choose(['Devices/Status'], 'GET /v1/devices/status/list (first page of 50)')).toBe(true);
    expect(choose(['stats', 'credits'], 'GET /v1/devices/status')).toBe(false);
  });

  it('anchors a filter ending in $ at the end of the name', () => {
    expect(choose(['devices/status$'], 'GET /v1/devices/status')).toBe(true);
    expect(choose(['devices/status$'], 'GET /v1/devices/status/list (first page of 50)')).toBe(false);
    expect(choose(['status$', 'retired$'], 'GET /v1/credits/retired')).toBe(true);
  });
});

describe('passesOf', () => {
  it('splits a run of two seconds or more into two passes per side, half the duration each', () => {
    expect([passesOf(2), passesOf(20), passesOf(0.5)]).toEqual([
      { split: true, passS: 1 },
      { split: true, passS: 10 },
      { split: false, passS: 0.5 },
    ]);
  });

  it('lengthens passes to a row’s minimum, never shortens them', () => {
    expect([passesOf(2, 5), passesOf(20, 5), passesOf(0.5, 5)]).toEqual([
      { split: true, passS: 5 },
      { split: true, passS: 10 },
      { split: false, passS: 5 },
    ]);
  });
});
