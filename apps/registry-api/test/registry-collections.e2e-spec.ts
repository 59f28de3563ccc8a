import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { TestDatabase } from '@dmrv/testing';
import {
  DELIVERIES,
  DEVICES,
  EVENTS,
  HOUSEHOLDS,
  PURCHASES,
  RegistryFixture,
} from './fixtures/registry-fixture';
import { get, schemaValidators, startRegistryStack, stopRegistryStack } from './registry-test-kit';

interface Page<T> {
  data: T[];
  page_info: { next_cursor: string | null; has_more: boolean; limit: number };
  total_count: number;
}

const byDateThenId =
  <T>(date: (row: T) => string, id: (row: T) => string | number) =>
  (a: T, b: T): number =>
    date(a) === date(b) ? (id(a) < id(b) ? -1 : id(a) > id(b) ? 1 : 0) : date(a) < date(b) ? -1 : 1;

describe('registry-api collections (cursor paging, additive to the original contract)', () => {
  let database: TestDatabase;
  let fixture: RegistryFixture;
  let app: NestFastifyApplication;
  let auth: Record<string, string>;
  let validator: ReturnType<typeof schemaValidators>;

  beforeAll(async () => {
    ({ database, fixture, app, auth } = await startRegistryStack('registry_collections', {
      RATE_LIMIT_PER_MINUTE: '0',
    }));
    validator = schemaValidators((await get(app, '/v1/openapi.json')).json());
  });

  afterAll(() => stopRegistryStack({ app, fixture, database }));

  async function page<T>(url: string, schema: string): Promise<Page<T>> {
    const response = await get(app, url, auth);
    expect({ url, status: response.statusCode, body: response.body }).toEqual({
      url,
      status: 200,
      body: response.body,
    });
    const body = response.json<Page<T>>();
    const validate = validator(schema);
    expect({ url, valid: validate(body), errors: validate.errors ?? null }).toEqual({
      url,
      valid: true,
      errors: null,
    });
    return body;
  }

  /** Follows next_cursor to the end; returns every item and every page. */
  async function walk<T>(
    path: string,
    schema: string,
    query = '',
    between?: (pageIndex: number) => Promise<void>,
  ): Promise<{ items: T[]; pages: Array<Page<T>> }> {
    const items: T[] = [];
    const pages: Array<Page<T>> = [];
    let cursor: string | null = null;
    do {
      const separator = query ? '&' : '';
      const url: string = `${path}?${query}${cursor ? `${separator}cursor=${cursor}` : ''}`;
      const current: Page<T> = await page<T>(url, schema);
      pages.push(current);
      items.push(...current.data);
      cursor = current.page_info.next_cursor;
      expect(current.page_info.has_more).toBe(cursor !== null);
      if (between) await between(pages.length - 1);
    } while (cursor !== null && pages.length < 100);
    return { items, pages };
  }

  const purchasesInOrder = [...PURCHASES].sort(
    byDateThenId(
      (p) => p.day,
      (p) => p.id,
    ),
  );
  const purchaseView = (p: (typeof PURCHASES)[number]) => ({
    fuel_id: p.id,
    amount: p.kg,
    purchase_date: p.day,
  });

  it('pages purchases by 50 by default, in (date, id) order, with the total in the body', async () => {
    expect(PURCHASES.length).toBeGreaterThan(100);
    const { items, pages } = await walk('/v1/claims/fuel-purchase/list', 'FuelPurchaseClaimPage');
    expect(pages.map((p) => p.data.length)).toEqual([50, 50, PURCHASES.length - 100]);
    expect(pages.every((p) => p.total_count === PURCHASES.length && p.page_info.limit === 50)).toBe(true);
    expect(items).toEqual(purchasesInOrder.map(purchaseView));
    expect(pages.at(-1)!.page_info).toEqual({ next_cursor: null, has_more: false, limit: 50 });
  });

  it('takes limit up to 500', async () => {
    const body = await page('/v1/claims/fuel-purchase/list?limit=500', 'FuelPurchaseClaimPage');
    expect(body.data).toHaveLength(PURCHASES.length);
    expect(body.page_info.has_more).toBe(false);
  });

  it.each([
    [
      'project_id=project-b',
      (p: (typeof PURCHASES)[number]) =>
        HOUSEHOLDS.find((h) => h.id === p.household)!.project === 'project-b',
    ],
    [
      'from=2024-03-01&to=2024-04-30',
      (p: (typeof PURCHASES)[number]) => p.day >= '2024-03-01' && p.day <= '2024-04-30',
    ],
    [
      'time_period=2024-Q2',
      (p: (typeof PURCHASES)[number]) => p.day >= '2024-04-01' && p.day <= '2024-06-30',
    ],
    ['updated_since=2024-09-01T00:00:00Z', (p: (typeof PURCHASES)[number]) => p.day >= '2024-09-01'],
    [
      'household_id=household-004&from=2024-05-01',
      (p: (typeof PURCHASES)[number]) => p.household === 'household-004' && p.day >= '2024-05-01',
    ],
  ])('filters by %s, and the total counts the filtered rows', async (query, keep) => {
    const expected = purchasesInOrder.filter(keep).map(purchaseView);
    const { items, pages } = await walk(
      '/v1/claims/fuel-purchase/list',
      'FuelPurchaseClaimPage',
      `limit=7&${query}`,
    );
    expect(items).toEqual(expected);
    expect(pages[0]!.total_count).toBe(expected.length);
  });

  it('pages every record resource in the same convention', async () => {
    const devices = await walk<{ device_id: string }>(
      '/v1/devices/status/list',
      'DeviceStatusPage',
      'limit=2',
    );
    expect(devices.items.map((d) => d.device_id)).toEqual(
      [...DEVICES]
        .sort(
          byDateThenId(
            (d) => d.lastActive,
            (d) => d.id,
          ),
        )
        .map((d) => d.id),
    );

    const indexed = EVENTS.map((event, index) => ({ event, index }));
    const ofKind = (kind: string) =>
      indexed
        .filter((x) => x.event.kind === kind)
        .sort(
          byDateThenId(
            (x) => x.event.day,
            (x) => x.index,
          ),
        );
    const transfers = await walk('/v1/credits/transferred/list', 'CreditsTransferredPage', 'limit=2');
    expect(transfers.items).toEqual(
      ofKind('transferred').map(({ event }) => ({
        sender: event.sender,
        recipient: event.recipient,
        amount: event.quantity,
        transfer_date: event.day,
      })),
    );
    const retired = await walk('/v1/credits/retired/list', 'CreditsRetiredPage', 'limit=1');
    expect(retired.items).toEqual(
      ofKind('retired').map(({ event }) => ({
        credit_id: event.block,
        retirement_date: event.day,
        emission_reductions: event.quantity,
      })),
    );
    const cancelled = await walk('/v1/credits/cancelled/list', 'CreditsCancelledPage', 'limit=1');
    expect(cancelled.items).toEqual(
      ofKind('cancelled').map(({ event }) => ({ credit_id: event.block, cancellation_date: event.day })),
    );

    const deliveries = await walk('/v1/claims/fuel-delivery/list', 'FuelDeliveryClaimPage', 'limit=3');
    expect(deliveries.items).toEqual(
      [...DELIVERIES]
        .sort(
          byDateThenId(
            (d) => d.day,
            (d) => d.id,
          ),
        )
        .map((d) => ({ delivery_id: d.id, delivery_date: d.day, delivered_quantity: d.kg })),
    );
    const onboarding = await walk(
      '/v1/claims/household-onboarding/list',
      'HouseholdOnboardingClaimPage',
      'limit=3',
    );
    expect(onboarding.items).toEqual(
      [...HOUSEHOLDS]
        .sort(
          byDateThenId(
            (h) => h.onboarded,
            (h) => h.id,
          ),
        )
        .map((h) => ({ household_id: h.id, onboarding_date: h.onboarded })),
    );
    const claims = await walk<{ project_id: string; period: string }>(
      '/v1/claims/emission-reduction/list',
      'EmissionReductionClaimPage',
      'limit=2',
    );
    expect(claims.items.map((c) => `${c.period} ${c.project_id}`)).toEqual([
      '2024-Q1 project-a',
      '2024-Q1 project-b',
      '2024-Q2 project-a',
      '2024-Q2 project-b',
      '2024-Q3 project-b',
    ]);
  });

  it('pages the stove-stacking distribution by combination name; percentages add up to 100', async () => {
    const { items, pages } = await walk<{ fuel_type: string; percentage: number }>(
      '/v1/households/stove-stacking/list',
      'StoveStackingPage',
      'limit=2',
    );
    expect(items.map((i) => i.fuel_type)).toEqual(['Charcoal', 'Electricity + Charcoal', 'LPG + Biomass']);
    expect(pages[0]!.total_count).toBe(3);
    expect(items.reduce((sum, i) => sum + i.percentage, 0)).toBeCloseTo(100, 1);
  });

  it('has no duplicates and no gaps when rows are added while a client pages', async () => {
    const before = purchasesInOrder.map((p) => p.id);
    const household = HOUSEHOLDS[0]!;
    let added = 0;
    const insert = async (id: string, day: string): Promise<void> => {
      added += 1;
      await fixture.dataSource.query(
        "INSERT INTO fuel_purchases (id, household_id, project_id, fuel_type, amount_kg, purchase_date) VALUES ($1, $2, $3, 'LPG', 1, $4)",
        [id, household.id, household.project, day],
      );
    };
    const { items } = await walk<{ fuel_id: string; purchase_date: string }>(
      '/v1/claims/fuel-purchase/list',
      'FuelPurchaseClaimPage',
      'limit=20',
      async (index) => {
        // Rows land before the cursor, right at it (same date, both sides of its id) and after it.
        await insert(`purchase-late-${index}`, '2024-12-31');
        await insert(`purchase-early-${index}`, '2023-06-01');
        await insert(`purchase-009-${index}-a`, '2024-05-17');
        await insert(`purchase-000-${index}-z`, '2024-05-17');
      },
    );
    const ids = items.map((i) => i.fuel_id);
    expect(new Set(ids).size).toBe(ids.length);
    const seenOriginal = ids.filter((id) => before.includes(id));
    expect(seenOriginal).toEqual(before);
    const keys = items.map((i) => `${i.purchase_date} ${i.fuel_id}`);
    expect(keys).toEqual([...keys].sort());
    // Rows added ahead of the reader's position are delivered too (the late ones all sort after every cursor).
    expect(ids.filter((id) => id.startsWith('purchase-late-')).length).toBeGreaterThan(0);
    expect(added).toBeGreaterThan(0);
  });

  it('lists a corrected record under updated_since: the database stamps updated_at on every UPDATE', async () => {
    const since = new Date().toISOString();
    const target = PURCHASES[3]!;
    await fixture.dataSource.query('UPDATE fuel_purchases SET amount_kg = 7 WHERE id = $1', [target.id]);
    const body = await page<{ fuel_id: string; amount: number }>(
      `/v1/claims/fuel-purchase/list?updated_since=${since}`,
      'FuelPurchaseClaimPage',
    );
    expect(body.data).toEqual([{ fuel_id: target.id, amount: 7, purchase_date: target.day }]);
    expect(body.total_count).toBe(1);
  });

  it('keeps timestamps exact below the millisecond when paging devices', async () => {
    const household = HOUSEHOLDS[1]!;
    for (const [id, at] of [
      ['device-us-1', '2024-06-03T00:00:00.000001Z'],
      ['device-us-2', '2024-06-03T00:00:00.000002Z'],
      ['device-us-3', '2024-06-03T00:00:00.000003Z'],
    ] as const) {
      await fixture.dataSource.query(
        "INSERT INTO devices (id, household_id, project_id, status, last_active) VALUES ($1, $2, $3, 'active', $4)",
        [id, household.id, household.project, at],
      );
    }
    const { items } = await walk<{ device_id: string }>(
      '/v1/devices/status/list',
      'DeviceStatusPage',
      'limit=1&from=2024-06-03',
    );
    expect(items.map((d) => d.device_id)).toEqual(['device-us-1', 'device-us-2', 'device-us-3']);
  });
});
