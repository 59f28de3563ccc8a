import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validateSync, ValidationError } from 'class-validator';
import { ConfigProblem, fileVariable, readVariables } from './file-variables';
import { removedVariablesOf, removedVariablesSet } from './removed-variables';

/** Thrown at start-up; its message names every missing, malformed or removed variable, never a value. */
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
 * read, each from the environment or from the file its `_FILE` twin names; an empty string counts as unset, so
 * `VAR=` in a compose file falls back to the default. A variable the schema marks `@RemovedVariables` is refused
 * while it is set.
 */
export function loadConfig<T extends object>(
  service: string,
  schema: ConfigClass<T>,
  env: NodeJS.ProcessEnv = process.env,
): T {
  const names = declaredVariables(schema);
  const ambiguous = names.filter((name) => names.includes(fileVariable(name)));
  if (ambiguous.length > 0)
    throw new Error(`${service}: the schema declares both ${ambiguous[0]} and its _FILE twin`);
  const removed = removedVariablesOf(schema);
  const redeclared = names.filter((name) => name in removed);
  if (redeclared.length > 0)
    throw new Error(`${service}: the schema declares ${redeclared[0]}, which it marks removed`);
  const { values, problems } = readVariables(names, env);
  const config = plainToInstance(schema, values);
  const errors = validateSync(config, {
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
  });
  // A variable whose value could not be read is reported once, for that reason, not again as missing.
  const unread = new Set(
    names.filter((name) => problems.some((p) => p.variable === name || p.variable === fileVariable(name))),
  );
  const all = [
    ...problems,
    ...flatten(errors).filter((problem) => !unread.has(problem.variable)),
    ...removedVariablesSet(removed, env),
  ];
  if (all.length > 0) throw new ConfigValidationError(service, all);
  return config;
}

/** One variable (or its `_FILE` twin) read outside a config class, e.g. by an operator command; undefined when unset. */
export function readVariable(
  service: string,
  name: string,
  env: NodeJS.ProcessEnv = process.env,
): string | undefined {
  const { values, problems } = readVariables([name], env);
  if (problems.length > 0) throw new ConfigValidationError(service, problems);
  return values[name];
}
