import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './environment';

/** One sample of a Prometheus text exposition: `name{label="value",…} 12`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of a scrape, and what the exposition declared about each family. */
export class Exposition {
  constructor(
    readonly samples: Sample[],
    /** `# TYPE` of each family. */
    readonly types: ReadonlyMap<string, string>,
  ) {}

  /** Samples of `name` whose labels include every label given. */
  find(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter(
      (sample) =>
        sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    );
  }

  /** The sum of the matching samples (0 when none matches: a series that has not moved yet may not exist). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((sum, sample) => sum + sample.value, 0);
  }
}

function unescape(value: string): string {
  return value.replace(/\\(["\\n])/g, (_all, char: string) => (char === 'n' ? '\n' : char));
}

/** Parses the Prometheus text format (version 0.0.4) as prom-client writes it. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) {
      types.set(type[1]!, type[2]!);
      continue;
    }
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = unescape(pair[2]!);
    }
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return new Exposition(samples, types);
}

/** GET a `/metrics` URL and parse it; throws on anything but a 200 in the Prometheus text format. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Exposition> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(response.headers.get('content-type') ?? '')) {
    throw new Error(`${url} is not the Prometheus text format: ${response.headers.get('content-type')}`);
  }
  return parseExposition(text);
}

/** A row of the metrics table of docs/deployment.md: what the alert rules and the dashboard rely on. */
export interface DocumentedFamily {
  name: string;
  type: string;
  labels: string[];
}

/**
 * The `dmrv_*` families docs/deployment.md lists for `service` ("all three services" included), with their type and
 * labels (the backticked names of the labels column, leaving out the example values in parentheses).
 */
export function documentedFamilies(
  service: string,
  path = join(REPO_ROOT, 'docs', 'deployment.md'),
): DocumentedFamily[] {
  const families: DocumentedFamily[] = [];
  for (const line of readFileSync(path, 'utf8').split('\n')) {
    const row = /^\| `(dmrv_[a-z0-9_]+)` \| (\w+) \| (.*?) \| (.*?) \|$/.exec(line);
    if (!row || !(row[4] === 'all three services' || row[4]!.split(/,\s*/).includes(service))) continue;
    const labels = [...row[3]!.replace(/\([^)]*\)/g, '').matchAll(/`([a-z_]+)`/g)].map((match) => match[1]!);
    families.push({ name: row[1]!, type: row[2]!, labels });
  }
  return families;
}

/**
 * What `exposition` lacks of the families docs/deployment.md lists for `service`: one line per family whose type
 * differs or of which no series carries every documented label. Empty when the document and the service agree.
 */
export function mismatchesWithDeploymentDoc(exposition: Exposition, service: string): string[] {
  const documented = documentedFamilies(service);
  if (documented.length === 0) return [`docs/deployment.md lists no dmrv_ family for ${service}`];
  return documented.flatMap((family) => {
    const type = exposition.types.get(family.name);
    if (type !== family.type)
      return [`${family.name}: exported as ${type ?? 'nothing'}, documented as ${family.type}`];
    const samples = exposition.find(family.type === 'histogram' ? `${family.name}_count` : family.name);
    return samples.some((sample) => family.labels.every((label) => label in sample.labels))
      ? []
      : [`${family.name}: no series carries every documented label (${family.labels.join(', ')})`];
  });
}
