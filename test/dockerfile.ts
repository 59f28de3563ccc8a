/** One instruction of a Dockerfile, continuation lines joined. */
export interface Instruction {
  keyword: string;
  /** Everything after the keyword and its leading `--flag=value` options. */
  args: string;
  flags: Record<string, string>;
  line: number;
}

export interface Stage {
  name: string;
  from: string;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** Parser directives (`# syntax=…`) from the top of the file. */
  directives: Record<string, string>;
  /** `ARG`s declared before the first `FROM`, with their defaults. */
  globalArgs: Record<string, string | undefined>;
  stages: Stage[];
}

const FLAGGED = new Set(['ADD', 'COPY', 'FROM', 'HEALTHCHECK', 'RUN']);

function splitFlags(rest: string): { flags: Record<string, string>; args: string } {
  const flags: Record<string, string> = {};
  let args = rest;
  for (;;) {
    const match = /^--([a-z-]+)(?:=(\S*))?\s+/.exec(args);
    if (!match) return { flags, args };
    flags[match[1]!] = match[2] ?? 'true';
    args = args.slice(match[0].length);
  }
}

/**
 * A Dockerfile as BuildKit reads it: parser directives only at the very top, comment lines dropped (also inside a
 * continued instruction), `\` continuations joined, leading `--flag=value` options split off.
 */
export function parseDockerfile(text: string): Dockerfile {
  const lines = text.split('\n');
  const directives: Record<string, string> = {};
  let index = 0;
  for (; index < lines.length; index += 1) {
    const directive = /^#\s*([a-z]+)\s*=\s*(\S+)\s*$/i.exec(lines[index]!);
    if (!directive) break;
    directives[directive[1]!.toLowerCase()] = directive[2]!;
  }

  const instructions: Instruction[] = [];
  let pending: { text: string; line: number } | undefined;
  for (; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (/^\s*#/.test(line) || (pending === undefined && line.trim() === '')) continue;
    const continued = /\\\s*$/.test(line);
    const content = continued ? line.replace(/\\\s*$/, '') : line;
    pending = pending
      ? { text: `${pending.text} ${content.trim()}`, line: pending.line }
      : { text: content.trim(), line: index + 1 };
    if (continued) continue;
    const [, keyword = '', rest = ''] = /^(\S+)\s*(.*)$/.exec(pending.text) ?? [];
    const upper = keyword.toUpperCase();
    const { flags, args } = FLAGGED.has(upper) ? splitFlags(rest) : { flags: {}, args: rest };
    instructions.push({ keyword: upper, args: args.trim(), flags, line: pending.line });
    pending = undefined;
  }

  const globalArgs: Record<string, string | undefined> = {};
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const [from = '', as, name] = instruction.args.split(/\s+/);
      stages.push({
        name: as?.toUpperCase() === 'AS' && name ? name : String(stages.length),
        from,
        instructions: [],
      });
    } else if (stages.length === 0) {
      if (instruction.keyword !== 'ARG')
        throw new Error(`line ${instruction.line}: ${instruction.keyword} before FROM`);
      const [name = '', value] = instruction.args.split('=', 2);
      globalArgs[name] = value;
    } else {
      stages[stages.length - 1]!.instructions.push(instruction);
    }
  }
  return { directives, globalArgs, stages };
}

/** The JSON (exec) form of CMD/ENTRYPOINT/HEALTHCHECK CMD, or undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  return Array.isArray(parsed) && parsed.every((item) => typeof item === 'string') ? parsed : undefined;
}

/** Sources and destination of a COPY in the shell form (the only form our Dockerfiles use). */
export function copyPaths(instruction: Instruction): { sources: string[]; destination: string } {
  const parts = instruction.args.split(/\s+/);
  return { sources: parts.slice(0, -1), destination: parts[parts.length - 1]! };
}

/** `ENV a=b c=d` (and the single `ENV a b` form) as a record. */
export function envValues(stage: Stage): Record<string, string> {
  const values: Record<string, string> = {};
  for (const { keyword, args } of stage.instructions) {
    if (keyword !== 'ENV') continue;
    if (!args.includes('=')) {
      const [name = '', ...value] = args.split(/\s+/);
      values[name] = value.join(' ');
      continue;
    }
    for (const pair of args.split(/\s+/)) {
      const [name = '', value = ''] = pair.split('=', 2);
      values[name] = value;
    }
  }
  return values;
}

/**
 * Whether a .dockerignore excludes a path of the build context. Supports what ours uses: `**` for any directories,
 * `*` within one segment, and a pattern that names a directory excludes everything below it. No `!` exceptions.
 */
export function dockerIgnores(patterns: readonly string[], path: string): boolean {
  return patterns.some((pattern) => {
    if (pattern.startsWith('!'))
      throw new Error('.dockerignore exceptions (!) are not supported by this check');
    const source = pattern
      .replace(/^\.\//, '')
      .split('/')
      .map((segment) =>
        segment === '**'
          ? '(?:.*/)?'
          : `${segment.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}/`,
      )
      .join('')
      .replace(/\/$/, '');
    return new RegExp(`^${source}(?:/.*)?$`).test(path);
  });
}

export function readDockerignore(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
