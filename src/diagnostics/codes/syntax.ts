// Diagnostic codes of the syntax phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const syntaxCodes = {
  // (entries added by the syntax phase; keep codes kebab-case and stable once released)
  'syntax-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
