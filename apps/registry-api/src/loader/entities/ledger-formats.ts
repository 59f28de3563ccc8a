import type { EntityFormat, EntityName, RuleBreach } from '../entity-description';
import { date, id } from './columns';

type LedgerEntity = Extract<EntityName, 'credit-blocks' | 'credit-events'>;

/** The credit ledger: blocks of serial-numbered credits and the events that move them. */
export const LEDGER_FORMATS: Record<LedgerEntity, EntityFormat> = {
  'credit-blocks': {
    name: 'credit-blocks',
    table: 'credit_blocks',
    key: ['id'],
    references: [{ column: 'project_id', entity: 'projects', table: 'projects', what: 'project' }],
    columns: [
      id('id'),
      id('project_id'),
      {
        name: 'vintage',
        type: { kind: 'integer', min: 2000, max: 2100 },
        required: true,
        sqlType: 'integer',
      },
      {
        name: 'serial_start',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      {
        name: 'serial_end',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      {
        name: 'quantity',
        type: { kind: 'integer', min: 1, max: 2_147_483_647 },
        required: true,
        sqlType: 'integer',
      },
    ],
    rowRules: (row) => {
      const [start, end, quantity] = [row.serial_start, row.serial_end, row.quantity].map(Number) as [
        number,
        number,
        number,
      ];
      return end - start + 1 === quantity
        ? []
        : [{ column: 'serial_end', rule: `must be serial_start + quantity - 1 (${start + quantity - 1})` }];
    },
    checks: (sql) => [
      sql.problem(
        'serial_start',
        `SELECT s.file_no, s.line, s.serial_start::text AS value,
                'serials ' || s.serial_start || '-' || s.serial_end || ' overlap those of ' ||
                CASE WHEN o.end_before >= o.serial_start AND o.prev_end >= o.serial_start THEN 'block ' || o.prev_id
                     WHEN o.start_after <= o.serial_end AND o.next_start <= o.serial_end THEN 'block ' || o.next_id
                     ELSE 'another block' END || ' of project ' || s.project_id AS rule
         FROM (
           SELECT b.*, max(serial_end) OVER before AS end_before, min(serial_start) OVER after AS start_after,
                  lag(id) OVER w AS prev_id, lag(serial_end) OVER w AS prev_end,
                  lead(id) OVER w AS next_id, lead(serial_start) OVER w AS next_start
           FROM ${sql.finalRows('credit-blocks', 'id, project_id, serial_start, serial_end')} b
           WINDOW w AS (PARTITION BY project_id ORDER BY serial_start, id),
                  before AS (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING),
                  after AS (w ROWS BETWEEN 1 FOLLOWING AND UNBOUNDED FOLLOWING)
         ) o JOIN ${sql.stage} s ON s.id = o.id AND NOT s.bad
         WHERE o.end_before >= o.serial_start OR o.start_after <= o.serial_end`,
      ),
      // Events carry their block's quantity under a composite foreign key (so a CHECK can bound them): a block
      // that already has events keeps its quantity.
      sql.problem(
        'quantity',
        `SELECT s.file_no, s.line, s.quantity::text AS value,
                'cannot change from ' || b.quantity || ': the block has ledger events' AS rule
         FROM ${sql.stage} s JOIN credit_blocks b ON b.id = s.id
         WHERE NOT s.bad AND b.quantity <> s.quantity AND EXISTS (SELECT 1 FROM credit_events e WHERE e.block_id = b.id)`,
      ),
    ],
    merge: {
      after: (stage) => [
        {
          sql: `UPDATE credit_events e SET project_id = s.project_id FROM ${stage} s
                WHERE e.block_id = s.id AND e.project_id <> s.project_id`,
        },
      ],
    },
  },
  'credit-events': {
    name: 'credit-events',
    table: 'credit_events',
    key: ['id'],
    references: [
      { column: 'block_id', entity: 'credit-blocks', table: 'credit_blocks', what: 'credit block' },
    ],
    columns: [
      {
        name: 'id',
        type: { kind: 'integer', min: 1, max: Number.MAX_SAFE_INTEGER },
        required: true,
        sqlType: 'bigint',
      },
      id('block_id'),
      {
        name: 'kind',
        type: { kind: 'enum', values: ['issued', 'transferred', 'retired', 'cancelled'] },
        required: true,
        sqlType: 'text',
      },
      date('event_date'),
      {
        name: 'quantity',
        type: { kind: 'integer', min: 1, max: 2_147_483_647 },
        required: true,
        sqlType: 'integer',
      },
      { name: 'sender', type: { kind: 'text', maxLength: 200 }, required: false, sqlType: 'text' },
      { name: 'recipient', type: { kind: 'text', maxLength: 200 }, required: false, sqlType: 'text' },
    ],
    rowRules: (row) => {
      const problems: RuleBreach[] = [];
      for (const party of ['sender', 'recipient']) {
        if (row.kind === 'transferred' && row[party] === null)
          problems.push({ column: party, rule: 'is required on a transfer' });
        if (row.kind !== 'transferred' && row[party] !== null)
          problems.push({ column: party, rule: 'is only for transfers' });
      }
      return problems;
    },
    derived: {
      join: 'JOIN credit_blocks b ON b.id = s.block_id',
      columns: [
        { column: 'block_quantity', source: 'b.quantity' },
        { column: 'project_id', source: 'b.project_id' },
      ],
    },
    checks: (sql) => {
      const blocks = sql.finalRows('credit-blocks', 'id, quantity');
      const events = sql.finalRows('credit-events', 'id, block_id, kind, event_date');
      return [
        sql.problem(
          'quantity',
          `SELECT s.file_no, s.line, s.quantity::text AS value,
                  CASE WHEN s.kind = 'issued' THEN 'an issuance moves the whole block: ' || b.quantity || ' credits'
                       ELSE 'moves more credits than block ' || s.block_id || ' holds (' || b.quantity || ')' END AS rule
           FROM ${sql.stage} s JOIN ${blocks} b ON b.id = s.block_id
           WHERE NOT s.bad AND (s.quantity > b.quantity OR (s.kind = 'issued' AND s.quantity <> b.quantity))`,
        ),
        sql.problem(
          'kind',
          `SELECT s.file_no, s.line, s.kind AS value, 'block ' || s.block_id || ' is already ' || o.kind || ' by event ' || o.id AS rule
           FROM ${sql.stage} s
           JOIN (
             SELECT block_id, kind = 'issued' AS issuance, array_agg(id ORDER BY id) AS ids, array_agg(kind ORDER BY id) AS kinds
             FROM ${events} e WHERE kind <> 'transferred'
             GROUP BY block_id, kind = 'issued' HAVING count(*) > 1
           ) g ON g.block_id = s.block_id AND g.issuance = (s.kind = 'issued')
           CROSS JOIN LATERAL (
             SELECT g.ids[i] AS id, g.kinds[i] AS kind FROM generate_subscripts(g.ids, 1) i WHERE g.ids[i] <> s.id ORDER BY i LIMIT 1
           ) o
           WHERE NOT s.bad AND s.kind <> 'transferred'`,
        ),
        sql.problem(
          'event_date',
          `SELECT s.file_no, s.line, to_char(s.event_date, 'YYYY-MM-DD') AS value,
                  'block ' || s.block_id || ' has no issuance on or before this date' AS rule
           FROM ${sql.stage} s JOIN ${blocks} b ON b.id = s.block_id
           LEFT JOIN (SELECT block_id, min(event_date) AS issued_on FROM ${events} e WHERE kind = 'issued' GROUP BY block_id) i
             ON i.block_id = s.block_id
           WHERE NOT s.bad AND s.kind <> 'issued' AND (i.issued_on IS NULL OR i.issued_on > s.event_date)`,
        ),
      ];
    },
    merge: {
      after: () => [
        // Event ids come from the ledger; new events added later through the identity column must not collide.
        {
          sql: `SELECT setval(sequence, m) FROM (
                  SELECT pg_get_serial_sequence('credit_events', 'id')::regclass AS sequence, max(id) AS m FROM credit_events
                ) x WHERE m > coalesce(pg_sequence_last_value(sequence), 0)`,
        },
      ],
    },
  },
};
