import { Logger } from '@nestjs/common';
import type { CounterFamily, Metrics } from '@dmrv/metrics';
import type { UnknownField } from './unknown-fields';

/**
 * Fields a node sent that our descriptors do not declare (a node newer than our .proto files): they are not in the
 * answer, so they must not vanish silently. Each is counted in `dmrv_protocol_unknown_fields_total{message, field}`;
 * the first answer that carries unknown fields of a message type is logged (once per type, not per request).
 */
export class UnknownFieldReport {
  private readonly logger = new Logger('UnknownFields');
  private readonly counts: CounterFamily;
  private readonly logged = new Set<string>();

  constructor(metrics: Metrics) {
    this.counts = metrics.counter(
      'dmrv_protocol_unknown_fields_total',
      'Fields in upstream answers that the gateway does not know and leaves out, by message type and field number',
      ['message', 'field'],
    );
  }

  report(method: string, fields: readonly UnknownField[]): void {
    const newlySeen = new Map<string, number[]>();
    for (const { message, field } of fields) {
      this.counts.labels(message, field).inc();
      if (this.logged.has(message)) continue;
      newlySeen.set(message, [...(newlySeen.get(message) ?? []), field]);
    }
    for (const [message, numbers] of newlySeen) {
      this.logged.add(message);
      this.logger.warn(
        { method, message, fields: numbers },
        `the upstream node sent fields of ${message} that this gateway does not declare (a newer node?); they are left out of answers`,
      );
    }
  }
}
