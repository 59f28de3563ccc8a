import { fileVariable } from './file-variables';

/** What to tell an operator who still sets a removed variable, by variable name. */
export type RemovedVariableGuidance = Readonly<Record<string, string>>;

const removedBySchema = new WeakMap<object, RemovedVariableGuidance>();

/**
 * Variables a service no longer reads, each with what replaced it or what to do instead. `loadConfig` refuses to
 * start while one is still set (or its `_FILE` twin): ignored in silence, a setting the operator chose would stop
 * meaning what they think it means.
 */
export function RemovedVariables(guidance: RemovedVariableGuidance): ClassDecorator {
  return (schema) => {
    removedBySchema.set(schema, guidance);
  };
}

/** The removed variables of `schema` and of the classes it extends. */
export function removedVariablesOf(schema: object): RemovedVariableGuidance {
  const chain: RemovedVariableGuidance[] = [];
  let at: object | null = schema;
  while (at !== null) {
    const own = removedBySchema.get(at);
    if (own) chain.unshift(own);
    at = Object.getPrototypeOf(at) as object | null;
  }
  return Object.assign({}, ...chain) as RemovedVariableGuidance;
}

/** The removed variables set in `env` (empty counts as unset, as for every variable), each with its guidance. */
export function removedVariablesSet(
  guidance: RemovedVariableGuidance,
  env: NodeJS.ProcessEnv,
): Array<{ variable: string; problem: string }> {
  const isSet = (name: string): boolean => (env[name] ?? '') !== '';
  return Object.entries(guidance)
    .filter(([name]) => isSet(name) || isSet(fileVariable(name)))
    .map(([variable, problem]) => ({ variable, problem }));
}
