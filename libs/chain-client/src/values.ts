/**
 * The bytes of a base64 field (`next_key`, `bytes` fields), standard or URL-safe, padded or not; with `atob`, so it
 * runs wherever fetch does.
 */
export function bytesFromBase64(text: string): Uint8Array {
  const standard = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(standard.padEnd(Math.ceil(standard.length / 4) * 4, '='));
  return Uint8Array.from(binary, (character) => character.charCodeAt(0));
}

/** A Duration as the JSON mapping prints it (`"3600s"`, `"1.5s"`, `"-0.000000001s"`) as seconds and nanoseconds. */
export interface Duration {
  seconds: bigint;
  nanos: number;
}

/**
 * `"3600s"` → `{ seconds: 3600n, nanos: 0 }`: the shape of Telescope's and cosmjs-types' `Duration`
 * (`Duration.fromPartial(parseDuration(text))`), whose `fromAmino` takes nanoseconds and throws on the JSON text.
 */
export function parseDuration(text: string): Duration {
  const match = /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(text);
  if (!match) throw new SyntaxError(`not a JSON Duration (e.g. "3600s", "1.5s"): ${JSON.stringify(text)}`);
  const sign = match[1] ? -1 : 1;
  const nanos = Number((match[3] ?? '').padEnd(9, '0'));
  return { seconds: BigInt(sign) * BigInt(match[2]!), nanos: nanos === 0 ? 0 : sign * nanos };
}
