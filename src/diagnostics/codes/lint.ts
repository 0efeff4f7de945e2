// Diagnostic codes of the lint phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const lintCodes = {
  // (entries added by the lint phase; keep codes kebab-case and stable once released)
  'lint-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
