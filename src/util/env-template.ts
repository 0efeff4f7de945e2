// `${NAME}` templates the plan keeps in place of values (the physical plan never holds a value
// from the environment) substituted for a run that needs the values, e.g. `pipec compact` opening
// a catalog. A missing variable is an error naming it, never an empty string.

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export class MissingVariableError extends Error {
  constructor(readonly variable: string) {
    super(`variable ${variable} is not set (environment or profile)`);
  }
}

export function substituteTemplate(template: string, vars: Record<string, string | undefined>): string {
  return template.replace(VAR, (_m, name: string) => {
    // Own properties only: `${constructor}` is a variable name, not Object.prototype's.
    const v = Object.hasOwn(vars, name) ? vars[name] : undefined;
    if (v === undefined) throw new MissingVariableError(name);
    return v;
  });
}
