import { InvalidInputError, NotFoundError } from '@dmrv/errors';
import { decodeCursor } from '../domain/cursor';
import { RecordFilters } from './record-query';
import { CollectionTotals, LatestRecordAnswers } from './record-answer-cache';
import { FUEL_PURCHASES, RecordResource } from './record-resources';
import { AggregateScope, CombinationCount, RegistryRepository } from './registry.repository';
import { RegistryService } from './registry.service';

/** The repository's contract, answered from memory: the service's decisions are tested without a database. */
class FakeRepository {
  projects = new Set(['project-a']);
  regions = new Set(['East']);
  households = new Map([['household-1', 'East']]);
  combinationCounts: CombinationCount[] = [
    { combination: 'LPG + Biomass', households: 2 },
    { combination: 'Charcoal', households: 1 },
  ];
  calls: Array<{ method: string; args: unknown[] }> = [];

  private record(method: string, ...args: unknown[]): void {
    this.calls.push({ method, args });
  }

  projectExists = (id: string) => Promise.resolve(this.projects.has(id));
  regionExists = (region: string) => Promise.resolve(this.regions.has(region));
  householdRegion = (id: string) => Promise.resolve(this.households.get(id) ?? null);
  densityCounts = (scope: AggregateScope) => {
    this.record('densityCounts', scope);
    return Promise.resolve({ low: 3, medium: 2, high: 1 });
  };
  combinations = (scope: AggregateScope) => {
    this.record('combinations', scope);
    return Promise.resolve(this.combinationCounts.map((entry) => ({ ...entry })));
  };
  fuelConsumedInScope = (scope: AggregateScope, from: string | null, to: string | null) => {
    this.record('fuelConsumedInScope', scope, from, to);
    return Promise.resolve(10.5);
  };
  fuelConsumedByHousehold = (id: string, from: string | null, to: string | null) => {
    this.record('fuelConsumedByHousehold', id, from, to);
    return Promise.resolve(4.25);
  };
  creditsIssued = (projectId: string, from: string, to: string) => {
    this.record('creditsIssued', projectId, from, to);
    return Promise.resolve(150);
  };
  emissionReductions = (projectId: string, from: string, to: string) => {
    this.record('emissionReductions', projectId, from, to);
    return Promise.resolve(this.projects.has(projectId) ? 42 : null);
  };
  latestRecord = (resource: RecordResource<unknown>, filters: RecordFilters) => {
    this.record('latestRecord', resource.name, filters);
    return Promise.resolve(
      filters.selectors.fuel_id === 'none'
        ? null
        : { fuel_id: 'purchase-1', amount: 6, purchase_date: '2024-01-01' },
    );
  };
  recordPage = (resource: RecordResource<unknown>, filters: RecordFilters, after: unknown, limit: number) => {
    this.record('recordPage', resource.name, filters, after, limit);
    return Promise.resolve({
      items: [{ fuel_id: 'purchase-2' }],
      lastKey: ['2024-01-02', 'purchase-2'],
      hasMore: true,
    });
  };
  recordCount = (resource: RecordResource<unknown>, filters: RecordFilters) => {
    this.record('recordCount', resource.name, filters);
    return Promise.resolve(7);
  };
}

describe('RegistryService', () => {
  let repository: FakeRepository;
  let service: RegistryService;

  beforeEach(() => {
    repository = new FakeRepository();
    service = new RegistryService(
      repository as unknown as RegistryRepository,
      new LatestRecordAnswers({ maxEntries: 0 }),
      new CollectionTotals({ maxEntries: 0 }),
    );
  });

  it('totals the density counts', async () => {
    await expect(service.householdStats({})).resolves.toEqual({
      total_households: 6,
      density: { low: 3, medium: 2, high: 1 },
    });
  });

  it('answers 404 for an unknown project or a region without households', async () => {
    await expect(service.householdStats({ projectId: 'project-z' })).rejects.toThrow(NotFoundError);
    await expect(service.householdStats({ region: 'Nowhere' })).rejects.toThrow(NotFoundError);
    await expect(service.creditsIssued('project-z', '2024-Q1')).rejects.toThrow(NotFoundError);
  });

  it('picks the most common combination and a named one, in percent with two decimals', async () => {
    await expect(service.stoveStacking({})).resolves.toEqual({
      fuel_type: 'LPG + Biomass',
      percentage: 66.67,
    });
    await expect(service.stoveStacking({}, 'charcoal')).resolves.toEqual({
      fuel_type: 'Charcoal',
      percentage: 33.33,
    });
    await expect(service.stoveStacking({}, 'Ethanol')).resolves.toEqual({
      fuel_type: 'Ethanol',
      percentage: 0,
    });
  });

  it('answers 404 for stove stacking when no household has recorded fuels', async () => {
    repository.combinationCounts = [];
    await expect(service.stoveStacking({})).rejects.toThrow(NotFoundError);
  });

  it('pages the distribution by name with a cursor', async () => {
    const first = await service.stoveStackingPage({}, 1);
    expect(first.data).toEqual([{ fuel_type: 'Charcoal', percentage: 33.33 }]);
    expect(first.total_count).toBe(2);
    expect(decodeCursor(first.page_info.next_cursor!, 1)).toEqual(['Charcoal']);
    const second = await service.stoveStackingPage({}, 1, first.page_info.next_cursor!);
    expect(second).toEqual({
      data: [{ fuel_type: 'LPG + Biomass', percentage: 66.67 }],
      page_info: { next_cursor: null, has_more: false, limit: 1 },
      total_count: 2,
    });
  });

  it('omits the fuel-usage fields that do not apply to the selection', async () => {
    await expect(service.fuelUsage({})).resolves.toEqual({ fuel_consumed: 10.5 });
    await expect(service.fuelUsage({ region: 'East' })).resolves.toEqual({
      fuel_consumed: 10.5,
      region: 'East',
    });
    await expect(service.fuelUsage({ household_id: 'household-1' })).resolves.toEqual({
      household_id: 'household-1',
      fuel_consumed: 4.25,
      region: 'East',
    });
  });

  it('rejects fuel usage for a household outside the named region, and reversed dates', async () => {
    await expect(service.fuelUsage({ household_id: 'household-1', region: 'West' })).rejects.toThrow(
      NotFoundError,
    );
    await expect(service.fuelUsage({ from: '2024-02-01', to: '2024-01-01' })).rejects.toThrow(
      InvalidInputError,
    );
  });

  it('asks the repository for the calendar days of a period', async () => {
    await expect(service.creditsIssued('project-a', '2024-Q2')).resolves.toEqual({
      project_id: 'project-a',
      time_period: '2024-Q2',
      credits: 150,
    });
    expect(repository.calls.at(-1)).toEqual({
      method: 'creditsIssued',
      args: ['project-a', '2024-04-01', '2024-06-30'],
    });
  });

  it('computes reductions for a project and period, and needs the project when a period is given', async () => {
    await expect(service.emissionReductions({ project_id: 'project-a', period: '2024' })).resolves.toEqual({
      project_id: 'project-a',
      period: '2024',
      reductions: 42,
    });
    await expect(
      service.emissionReductions({ project_id: 'project-a', time_period: '2024-03' }),
    ).resolves.toMatchObject({ period: '2024-03' });
    await expect(service.emissionReductions({ period: '2024' })).rejects.toThrow(/project_id is required/);
    await expect(
      service.emissionReductions({ project_id: 'project-a', period: '2024', time_period: '2023' }),
    ).rejects.toThrow(InvalidInputError);
    await expect(service.emissionReductions({ project_id: 'project-z', period: '2024' })).rejects.toThrow(
      NotFoundError,
    );
  });

  it('turns selectors and time_period into record filters, and an unmatched selector into 404', async () => {
    await service.latest(FUEL_PURCHASES, {
      fuel_id: 'purchase-1',
      project_id: 'project-a',
      time_period: '2024-Q1',
      ignored: 'x',
    });
    expect(repository.calls.at(-1)!.args[1]).toEqual({
      selectors: { fuel_id: 'purchase-1' },
      projectId: 'project-a',
      from: '2024-01-01',
      to: '2024-03-31',
    });
    await expect(service.latest(FUEL_PURCHASES, { fuel_id: 'none' })).rejects.toThrow(NotFoundError);
  });

  it('narrows a page to the intersection of time_period and from/to, and refuses an empty intersection', async () => {
    await service.page(FUEL_PURCHASES, {
      time_period: '2024-Q1',
      from: '2024-02-01',
      to: '2024-12-31',
      limit: 10,
    });
    expect(repository.calls.at(-1)!.args[1]).toMatchObject({ from: '2024-02-01', to: '2024-03-31' });
    await expect(
      service.page(FUEL_PURCHASES, { time_period: '2024-Q1', from: '2024-05-01' }),
    ).rejects.toThrow(/from must not be after to/);
  });

  it('hands out a cursor for the next page and rejects a cursor that does not fit the resource', async () => {
    const page = await service.page(FUEL_PURCHASES, {});
    expect(page.page_info).toEqual({ next_cursor: expect.any(String) as string, has_more: true, limit: 50 });
    expect(page.total_count).toBe(7);
    const counted = repository.calls.filter((call) => call.method === 'recordCount').length;
    const next = await service.page(FUEL_PURCHASES, { cursor: page.page_info.next_cursor! });
    expect(repository.calls.at(-1)!.args[2]).toEqual(['2024-01-02', 'purchase-2']);
    // Later pages carry the first page's total in the cursor instead of counting every matching row again.
    expect(next.total_count).toBe(7);
    expect(repository.calls.filter((call) => call.method === 'recordCount').length).toBe(counted);
    for (const tampered of [
      ['2024-01-02', 'purchase-2', -1],
      ['2024-01-02', 'purchase-2', 'many'],
      ['2024-01-02', 'purchase-2', 1.5],
    ]) {
      const cursor = Buffer.from(JSON.stringify(tampered)).toString('base64url');
      await expect(service.page(FUEL_PURCHASES, { cursor })).rejects.toThrow(
        /cursor is not a cursor of this collection/,
      );
    }
    const devicesCursor = Buffer.from(JSON.stringify(['1704067200000000', 'device-1', 7])).toString(
      'base64url',
    );
    await expect(service.page(FUEL_PURCHASES, { cursor: devicesCursor })).rejects.toThrow(
      /cursor is not a cursor of this collection/,
    );
  });
});
