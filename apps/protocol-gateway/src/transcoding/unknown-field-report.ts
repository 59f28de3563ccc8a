import { Logger } from '@nestjs/common';
import type { Counter, Metrics } from '@dmrv/metrics';
import type { UnknownField } from './unknown-fields';

/**
 * Distinct (message, field) series kept at most: the field numbers come from the node's bytes, so a hostile node could
 * otherwise make a series per answer. A newer node adds a handful of fields; past this many, the rest are counted
 * together under `message="other", field="other"`. The same bound holds for the message types logged.
 */
export const UNKNOWN_FIELD_SERIES_MAX = 100;
export const OTHER = 'other';

/**
 * Fields a node sent that our descriptors do not declare (a node newer than our .proto files): they are not in the
 * answer, so they must not vanish silently. Each is counted in `dmrv_protocol_unknown_fields_total{message, field}`;
 * the first answer that carries unknown fields of a message type is logged (once per type, not per request).
 */
export class UnknownFieldReport {
  private readonly logger = new Logger('UnknownFields');
  private readonly counts: Counter;
  private readonly series = new Map<string, Counter.Internal>();
  private readonly overflow: Counter.Internal;
  private readonly logged = new Set<string>();
  private overflowLogged = false;

  constructor(metrics: Metrics) {
    this.counts = metrics.counter(
      'dmrv_protocol_unknown_fields_total',
      'Fields in upstream answers that the gateway does not know and leaves out, by message type and field number',
      ['message', 'field'],
    );
    this.overflow = this.counts.labels(OTHER, OTHER);
    this.overflow.inc(0);
  }

  report(method: string, fields: readonly UnknownField[]): void {
    const newlySeen = new Map<string, number[]>();
    for (const { message, field } of fields) {
      this.counterFor(message, field).inc();
      if (this.logged.has(message)) continue;
      newlySeen.set(message, [...(newlySeen.get(message) ?? []), field]);
    }
    for (const [message, numbers] of newlySeen) {
      if (this.logged.size >= UNKNOWN_FIELD_SERIES_MAX) {
        if (!this.overflowLogged) {
          this.overflowLogged = true;
          this.logger.warn(
            { method },
            `the upstream node sent unknown fields of more than ${UNKNOWN_FIELD_SERIES_MAX} message types; further ones are not logged`,
          );
        }
        break;
      }
      this.logged.add(message);
      this.logger.warn(
        { method, message, fields: numbers },
        `the upstream node sent fields of ${message} that this gateway does not declare (a newer node?); they are left out of answers`,
      );
    }
  }

  private counterFor(message: string, field: number): Counter.Internal {
    const key = `${message}#${field}`;
    let counter = this.series.get(key);
    if (counter === undefined) {
      if (this.series.size >= UNKNOWN_FIELD_SERIES_MAX) return this.overflow;
      counter = this.counts.labels(message, String(field));
      this.series.set(key, counter);
    }
    return counter;
  }
}
