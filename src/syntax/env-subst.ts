// `${NAME}` substitution inside option values (LANGUAGE.md "Files"; docs/language-decisions.md
// says why options only). Shared by both front ends. A missing variable is a compile error,
// never an empty string. String literals inside queries are never substituted: they only warn.
import type { Span } from '../diagnostics/span.ts';
import type { FrontEndContext } from './front-end.ts';

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export interface Substituted {
  text: string;
  envVars: string[];
}

export function substituteEnv(raw: string, span: Span, ctx: FrontEndContext): Substituted {
  const envVars: string[] = [];
  const missing = new Set<string>();
  const seen = new Set<string>();
  const text = raw.replace(VAR, (_m, name: string) => {
    if (!seen.has(name)) envVars.push(name);
    seen.add(name);
    const v = ctx.env.get(name);
    if (v === undefined) {
      // Once per name: `${A}` ten thousand times is one missing variable.
      if (!missing.has(name)) ctx.diagnostics.report('missing-env-var', span, { name });
      missing.add(name);
      return '';
    }
    ctx.diagnostics.hideValue(name, v);
    return v;
  });
  return { text, envVars };
}

/**
 * A string literal inside a query keeps its text: `${NAME}` there is data, not a reference
 * (Flink SQL has no substitution in literals, and a substituted secret would be compiled into
 * every generated file). Warns once per literal, naming the first variable.
 */
export function warnEnvInLiteral(raw: string, span: Span, ctx: FrontEndContext): void {
  const m = new RegExp(VAR.source).exec(raw);
  if (m) ctx.diagnostics.report('env-in-sql-literal', span, { name: m[1]! });
}
