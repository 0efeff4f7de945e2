// Diagnostic codes of the schema phase. Each entry: severity, title, message, help, long explanation.
import { def } from '../diagnostic.ts';

export const schemaCodes = {
  // (entries added by the schema phase; keep codes kebab-case and stable once released)
  'schema-placeholder-unused': def<Record<string, never>>({
    severity: 'info',
    title: 'placeholder',
    message: () => 'placeholder',
    explain: 'Placeholder entry; remove when the first real code of this area lands.',
  }),
} as const;
