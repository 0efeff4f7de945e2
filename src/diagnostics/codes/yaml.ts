// Diagnostic codes of the yaml phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const yamlCodes = {
  // (entries added by the yaml phase; keep codes kebab-case and stable once released)
  'yaml-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
