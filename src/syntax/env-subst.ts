// `${NAME}` substitution inside string literals (LANGUAGE.md "Files"). Shared by both front
// ends. A missing variable is a compile error, never an empty string.
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
    return v;
  });
  return { text, envVars };
}
