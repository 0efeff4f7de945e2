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
  const text = raw.replace(VAR, (_m, name: string) => {
    if (!envVars.includes(name)) envVars.push(name);
    const v = ctx.env.get(name);
    if (v === undefined) {
      ctx.diagnostics.report('missing-env-var', span, { name });
      return '';
    }
    return v;
  });
  return { text, envVars };
}
