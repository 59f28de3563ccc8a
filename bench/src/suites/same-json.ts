/** Key order does not matter in JSON objects; everything else (types, array order, numbers) does. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Undefined when both bodies hold the same JSON, else a short description of the difference. */
export function jsonDifference(floorBody: string, serviceBody: string): string | undefined {
  let floor: string;
  let service: string;
  try {
    floor = canonicalJson(JSON.parse(floorBody));
    service = canonicalJson(JSON.parse(serviceBody));
  } catch {
    return `not both JSON: floor ${floorBody.slice(0, 80)} / service ${serviceBody.slice(0, 80)}`;
  }
  if (floor === service) return undefined;
  let at = 0;
  while (at < floor.length && floor[at] === service[at]) at += 1;
  const from = Math.max(0, at - 40);
  return `floor …${floor.slice(from, at + 60)}… vs service …${service.slice(from, at + 60)}…`;
}
