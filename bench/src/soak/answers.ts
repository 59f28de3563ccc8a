/**
 * What each answer of the soak was, by service. Only the kinds the services document may appear; anything else is
 * `undocumented` and fails the run.
 */
export type AnswerKind =
  /** The expected screen or body. */
  | 'ok'
  /** A documented "try later": USSD's unavailable END, a registry 503 `{message}`, a protocol 503/504 error body. */
  | 'unavailable'
  /** USSD's busy END on a PIN hop (hash admission full; nothing written, nothing charged). */
  | 'busy'
  /** A wrong screen or body, a status the contract does not list, a dropped connection or no answer in time. */
  | 'undocumented';

export type ServiceName = 'ussd' | 'registry' | 'protocol';

export const SERVICES: readonly ServiceName[] = ['ussd', 'registry', 'protocol'];
export const KINDS: readonly AnswerKind[] = ['ok', 'unavailable', 'busy', 'undocumented'];

export const USSD_UNAVAILABLE = 'END Service temporarily unavailable. Please try again later.';
const USSD_BUSY = /^END The service is busy/;

/** A USSD answer: `expected` says whether the screen is the one the flow expects at this hop. */
export function ussdKind(status: number, body: string, expected: boolean): AnswerKind {
  if (status !== 200) return 'undocumented';
  if (expected) return 'ok';
  if (body === USSD_UNAVAILABLE) return 'unavailable';
  if (USSD_BUSY.test(body)) return 'busy';
  return 'undocumented';
}

function hasMessage(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { message?: unknown };
    return typeof parsed.message === 'string' && parsed.message.length > 0;
  } catch {
    return false;
  }
}

/** A registry answer: 503 with a `{message}` body is the documented outage answer. */
export function registryKind(status: number, body: string, expected: boolean): AnswerKind {
  if (status === 200) return expected ? 'ok' : 'undocumented';
  if (status === 503 && hasMessage(body)) return 'unavailable';
  return 'undocumented';
}

/** A protocol answer: 503 (node unreachable) and 504 (node past its deadline) carry the `{code, message}` body. */
export function protocolKind(status: number, body: string, expected: boolean): AnswerKind {
  if (status === 200) return expected ? 'ok' : 'undocumented';
  if ((status === 503 || status === 504) && hasMessage(body)) return 'unavailable';
  return 'undocumented';
}

/** Answers by service and kind, plus a sample of each undocumented answer (for the report). */
export class AnswerTally {
  private readonly counts = new Map<string, number>();
  readonly undocumentedSamples: string[] = [];

  add(service: ServiceName, kind: AnswerKind, detail?: string): void {
    const key = `${service}:${kind}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
    if (kind === 'undocumented' && this.undocumentedSamples.length < 20) {
      this.undocumentedSamples.push(`${service}: ${detail ?? '(no detail)'}`);
    }
  }

  count(service: ServiceName, kind: AnswerKind): number {
    return this.counts.get(`${service}:${kind}`) ?? 0;
  }

  snapshot(): Record<ServiceName, Record<AnswerKind, number>> {
    const table = {} as Record<ServiceName, Record<AnswerKind, number>>;
    for (const service of SERVICES) {
      table[service] = {} as Record<AnswerKind, number>;
      for (const kind of KINDS) table[service][kind] = this.count(service, kind);
    }
    return table;
  }
}
