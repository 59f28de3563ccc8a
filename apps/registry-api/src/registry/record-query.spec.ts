import { latestRecordQuery, recordCountQuery, recordPageQuery } from './record-query';
import { CREDITS_RETIRED, DEVICE_STATUS, FUEL_PURCHASES } from './record-resources';

describe('record queries', () => {
  it('selects the most recent record, ties by the highest id', () => {
    const query = latestRecordQuery(FUEL_PURCHASES, {
      selectors: { household_id: 'household-1' },
      projectId: 'project-1',
    });
    expect(query.sql).toMatch(
      /WHERE p\.household_id = \$1 AND p\.project_id = \$2 ORDER BY p\.purchase_date DESC, p\.id DESC LIMIT 1$/,
    );
    expect(query.params).toEqual(['household-1', 'project-1']);
  });

  it('keeps the resource condition and binds every value', () => {
    const query = latestRecordQuery(CREDITS_RETIRED, { selectors: { credit_id: "x' OR 1=1 --" } });
    expect(query.sql).toContain("e.kind = 'retired' AND e.block_id = $1");
    expect(query.sql).not.toContain('OR 1=1');
  });

  it('pages strictly after the cursor key in ascending order, one row more than the limit', () => {
    const query = recordPageQuery(
      FUEL_PURCHASES,
      { selectors: {}, from: '2024-01-01', to: '2024-03-31' },
      ['2024-01-05', 'purchase-9'],
      50,
    );
    expect(query.sql).toContain('p.purchase_date >= $1::date AND p.purchase_date <= $2::date');
    expect(query.sql).toContain('(p.purchase_date, p.id) > ($3::date, $4::text)');
    expect(query.sql).toMatch(/ORDER BY p\.purchase_date ASC, p\.id ASC LIMIT \$5$/);
    expect(query.params).toEqual(['2024-01-01', '2024-03-31', '2024-01-05', 'purchase-9', 51]);
  });

  it('keys timestamps in microseconds and bounds them at UTC midnight', () => {
    const query = recordPageQuery(
      DEVICE_STATUS,
      { selectors: {}, to: '2024-01-31', updatedSince: '2024-01-01T00:00:00Z' },
      ['1704067200000001', 'device-1'],
      10,
    );
    expect(query.sql).toContain("d.last_active < (($1::date + 1)::timestamp AT TIME ZONE 'UTC')");
    expect(query.sql).toContain('d.updated_at >= $2::timestamptz');
    expect(query.sql).toContain("(timestamptz 'epoch' + $3::bigint * interval '1 microsecond')");
    expect(query.sql).toContain('extract(epoch FROM d.last_active) * 1000000');
  });

  it('counts with the same filters and no cursor', () => {
    const query = recordCountQuery(CREDITS_RETIRED, { selectors: {}, projectId: 'project-1' });
    expect(query.sql).toBe(
      "SELECT count(*)::bigint AS total FROM credit_events e WHERE e.kind = 'retired' AND e.project_id = $1",
    );
  });

  it('refuses a selector the resource does not declare', () => {
    expect(() => latestRecordQuery(DEVICE_STATUS, { selectors: { fuel_id: 'x' } })).toThrow(
      /no selector fuel_id/,
    );
  });
});
