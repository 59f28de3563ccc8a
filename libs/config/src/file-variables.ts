import { readFileSync } from 'node:fs';

export interface ConfigProblem {
  variable: string;
  problem: string;
}

/** `X_FILE` names a file whose content is the value of `X`. */
export function fileVariable(name: string): string {
  return `${name}_FILE`;
}

export interface VariableReading {
  /** The set variables, by name; an empty value counts as unset. */
  values: Record<string, string>;
  problems: ConfigProblem[];
}

function isSet(value: string | undefined): value is string {
  return value !== undefined && value !== '';
}

/**
 * Reads each variable from the environment or from the file its `_FILE` twin names, as the official database
 * images do: Docker and Kubernetes hand secrets over as files, which stay out of `docker inspect` and process
 * listings. Trailing line breaks are dropped (`echo secret > file` writes one). Setting both is refused rather than
 * one silently winning; a file that cannot be read is reported by variable and path, never by content.
 */
export function readVariables(names: readonly string[], env: NodeJS.ProcessEnv): VariableReading {
  const values: Record<string, string> = {};
  const problems: ConfigProblem[] = [];
  for (const name of names) {
    const direct = env[name];
    const fileName = fileVariable(name);
    const path = env[fileName];
    if (isSet(direct) && isSet(path)) {
      problems.push({ variable: name, problem: `set either ${name} or ${fileName}, not both` });
    } else if (isSet(path)) {
      let content: string;
      try {
        content = readFileSync(path, 'utf8');
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
        problems.push({ variable: fileName, problem: `cannot read ${path} (${code})` });
        continue;
      }
      const value = content.replace(/[\r\n]+$/, '');
      if (value !== '') values[name] = value;
    } else if (isSet(direct)) {
      values[name] = direct;
    }
  }
  return { values, problems };
}
