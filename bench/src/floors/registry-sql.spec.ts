import { RECORD_RESOURCES } from '../../../apps/registry-api/src/registry/record-resources';
import { firstPageSql, latestSql, periodRange, RECORDS } from './registry-sql';

describe('registry floor SQL', () => {
  it.each([
    ['2024-Q1', { start: '2024-01-01', end: '2024-03-31' }],
    ['2024-Q4', { start: '2024-10-01', end: '2024-12-31' }],
    ['2024-02', { start: '2024-02-01', end: '2024-02-29' }],
    ['2023', { start: '2023-01-01', end: '2023-12-31' }],
    ['2024-Q5', null],
  ])('reads the period %s like the API', (label, expected) => {
    expect(periodRange(label)).toEqual(expected);
  });

  it('reads the latest record and the first page through the (date, id) order', () => {
    const devices = RECORDS['/devices/status']!;

    expect(latestSql(devices)).toBe(
      'SELECT d.id AS device_id, d.status, d.last_active FROM devices d  ORDER BY d.last_active DESC, d.id DESC LIMIT 1',
    );
    expect(firstPageSql(RECORDS['/credits/retired']!)).toContain(
      "WHERE e.kind = 'retired' ORDER BY e.event_date ASC, e.id ASC LIMIT $1",
    );
    expect(firstPageSql(devices)).toContain(
      '(extract(epoch FROM d.last_active) * 1000000)::bigint::text AS _key_date',
    );
  });

  // The floor is a separate process with no dependency on the service (it must stay the least work that answers), so
  // it keeps its own copy of each record resource's SQL; this ties the copy to the service's declaration.
  it('reads every record resource with the SQL the service declares for it', () => {
    const declared = Object.fromEntries(
      RECORD_RESOURCES.map((resource) => [
        resource.endpoint.path,
        {
          from: resource.fromClause,
          ...(resource.where ? { where: resource.where } : {}),
          dateColumn: resource.dateColumn,
          idColumn: resource.idColumn,
          dateType: resource.dateType,
          select: resource.select,
        },
      ]),
    );
    expect(RECORDS).toEqual(declared);
  });
});
