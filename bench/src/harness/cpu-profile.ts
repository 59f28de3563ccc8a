import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The parts of V8's `.cpuprofile` (written by `node --cpu-prof`) that a summary needs. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    hitCount?: number;
  }>;
  startTime: number;
  endTime: number;
}

export interface ProfileLine {
  name: string;
  share: number;
}

/** Where a frame's code lives: a package under node_modules, a workspace package, Node itself, or V8. */
export function ownerOf(url: string): string {
  if (url === '') return '(V8: GC, idle, native)';
  if (url.startsWith('node:')) return 'node core';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules !== -1) {
    const rest = url.slice(modules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const workspace = /\/(apps|libs|tools|bench)\/([^/]+)\//.exec(url);
  return workspace ? `${workspace[1]}/${workspace[2]}` : url;
}

/** Self time per function and per owner, as shares of all samples; idle time is left out of the shares. */
export function summariseProfile(
  profile: CpuProfile,
  top = 15,
): { functions: ProfileLine[]; owners: ProfileLine[]; busyShare: number } {
  const byFunction = new Map<string, number>();
  const byOwner = new Map<string, number>();
  let busy = 0;
  let total = 0;
  for (const node of profile.nodes) {
    const hits = node.hitCount ?? 0;
    total += hits;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)' || functionName === '(program)' || hits === 0) continue;
    busy += hits;
    const file = url.split('/').slice(-2).join('/');
    const name =
      `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''} [${ownerOf(url)}]`.trim();
    byFunction.set(name, (byFunction.get(name) ?? 0) + hits);
    const owner = ownerOf(url);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + hits);
  }
  const lines = (map: Map<string, number>): ProfileLine[] =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, hits]) => ({ name, share: busy > 0 ? hits / busy : 0 }));
  return { functions: lines(byFunction), owners: lines(byOwner), busyShare: total > 0 ? busy / total : 0 };
}

export function renderProfileSummary(title: string, profile: CpuProfile): string {
  const { functions, owners, busyShare } = summariseProfile(profile);
  const pct = (share: number): string => `${(share * 100).toFixed(1)} %`;
  return [
    `### ${title}`,
    '',
    `Busy ${pct(busyShare)} of ${((profile.endTime - profile.startTime) / 1e6).toFixed(1)} s sampled. Self time by owner:`,
    '',
    ...owners.map((line) => `- ${pct(line.share)} ${line.name}`),
    '',
    'Hottest functions (self time):',
    '',
    ...functions.map((line) => `- ${pct(line.share)} ${line.name}`),
  ].join('\n');
}

export function summariseProfiles(dir: string): string {
  let files: string[];
  try {
    files = readdirSync(dir)
      .filter((file) => file.endsWith('.cpuprofile'))
      .sort();
  } catch {
    return '';
  }
  return files
    .map((file) =>
      renderProfileSummary(file, JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile),
    )
    .join('\n\n');
}
