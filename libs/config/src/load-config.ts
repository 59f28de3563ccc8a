import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';

export interface ConfigProblem {
  variable: string;
  problem: string;
}

/** Thrown at start-up; its message names every missing or malformed variable, never a value. */
export class ConfigValidationError extends Error {
  constructor(
    readonly service: string,
    readonly problems: ConfigProblem[],
  ) {
    super(
      `${service}: invalid configuration\n` +
        problems.map(({ variable, problem }) => `  - ${variable}: ${problem}`).join('\n'),
    );
    this.name = 'ConfigValidationError';
  }
}

type ConfigClass<T> = new () => T;

function declaredVariables(schema: ConfigClass<unknown>): string[] {
  const metadata = getMetadataStorage().getTargetValidationMetadatas(schema, '', true, false);
  return [...new Set(metadata.map((entry) => entry.propertyName))];
}

function flatten(errors: ValidationError[], prefix = ''): ConfigProblem[] {
  return errors.flatMap((error) => {
    const variable = prefix + error.property;
    const constraints = error.constraints ?? {};
    // A missing variable fails every rule; saying it is required is the whole story.
    const problems = constraints.isDefined ? [constraints.isDefined] : Object.values(constraints);
    const own = problems.length > 0 ? [{ variable, problem: problems.join('; ') }] : [];
    return [...own, ...flatten(error.children ?? [], `${variable}.`)];
  });
}

/**
 * Validates the environment once, at start-up, into a typed object. Only the variables the schema declares are
 * read; an empty string counts as unset, so `VAR=` in a compose file falls back to the default.
 */
export function loadConfig<T extends object>(
  service: string,
  schema: ConfigClass<T>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const plain: Record<string, string> = {};
  for (const name of declaredVariables(schema)) {
    const value = env[name];
    if (value !== undefined && value !== '') plain[name] = value;
  }
  const config = plainToInstance(schema, plain);
  const errors = validateSync(config, { forbidUnknownValues: true, validationError: { target: false, value: false } });
  if (errors.length > 0) throw new ConfigValidationError(service, flatten(errors));
  return config;
}
