import { Logger } from '@nestjs/common';
import { Metrics } from '@dmrv/metrics';
import { parseExposition } from '@dmrv/testing';
import { UNKNOWN_FIELD_SERIES_MAX, UnknownFieldReport } from './unknown-field-report';

describe('UnknownFieldReport under a hostile node', () => {
  it('keeps at most a fixed number of series however many field numbers the node makes up, the rest as other', async () => {
    const metrics = new Metrics('protocol-gateway');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const report = new UnknownFieldReport(metrics);
      const answers = 20_000;
      for (let i = 0; i < answers; i += 1) {
        report.report('ixo.entity.v1beta1.Query/Entity', [
          { message: 'ixo.entity.v1beta1.Entity', field: 100 + i },
        ]);
      }
      // A message type of its own, arriving once the bound is reached, is counted as other too.
      report.report('ixo.claims.v1beta1.Query/Claim', [{ message: 'ixo.claims.v1beta1.Claim', field: 99 }]);

      const exposed = parseExposition(await metrics.registry.metrics());
      const series = exposed.find('dmrv_protocol_unknown_fields_total');
      expect(series).toHaveLength(UNKNOWN_FIELD_SERIES_MAX + 1);
      expect(exposed.value('dmrv_protocol_unknown_fields_total')).toBe(answers + 1);
      expect(exposed.value('dmrv_protocol_unknown_fields_total', { message: 'other', field: 'other' })).toBe(
        answers + 1 - UNKNOWN_FIELD_SERIES_MAX,
      );
      expect(
        exposed.value('dmrv_protocol_unknown_fields_total', {
          message: 'ixo.entity.v1beta1.Entity',
          field: '100',
        }),
      ).toBe(1);
      // Once per message type, as before: the flood is one line, not twenty thousand.
      expect(warn.mock.calls.map(([fields]) => fields)).toEqual([
        { method: 'ixo.entity.v1beta1.Query/Entity', message: 'ixo.entity.v1beta1.Entity', fields: [100] },
        { method: 'ixo.claims.v1beta1.Query/Claim', message: 'ixo.claims.v1beta1.Claim', fields: [99] },
      ]);
    } finally {
      warn.mockRestore();
    }
  });

  it('logs at most a fixed number of message types, then says once that it stops', () => {
    const metrics = new Metrics('protocol-gateway');
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    try {
      const report = new UnknownFieldReport(metrics);
      for (let i = 0; i < UNKNOWN_FIELD_SERIES_MAX + 50; i += 1) {
        report.report('hostile.Query/M', [{ message: `hostile.M${i}`, field: 1 }]);
      }
      expect(warn).toHaveBeenCalledTimes(UNKNOWN_FIELD_SERIES_MAX + 1);
      expect(warn.mock.calls.at(-1)).toEqual([
        { method: 'hostile.Query/M' },
        `the upstream node sent unknown fields of more than ${UNKNOWN_FIELD_SERIES_MAX} message types; further ones are not logged`,
      ]);
    } finally {
      warn.mockRestore();
    }
  });
});
